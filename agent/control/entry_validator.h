// Checks one submission entry copied out of a client's ring. Everything in it is untrusted: a
// rejection names the field and the bad value; an accepted entry is resolved into spans inside
// regions the client owns.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "agent/engine/op.h"
#include "agent/memory/region_table.h"
#include "base/status.h"
#include "ipc/defaults.h"
#include "ipc/protocol.h"

namespace outrider::agent {

// A region this client registered, or null.
using RegionLookup = std::function<const Region*(uint32_t region_id)>;

// `rank`/`world_size` (the job's, across nodes) shape the expected buffer sizes (allgather,
// reduce-scatter), the in-place positions and the valid broadcast roots.
Result<ValidatedOp> ValidateEntry(const ipc::SubmitEntry& e, int rank, int world_size,
                                  const RegionLookup& regions);

}  // namespace outrider::agent
