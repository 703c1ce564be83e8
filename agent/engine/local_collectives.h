// Collectives whose every participant is a local client: run through the data plane in fixed rank
// order, so results are bitwise reproducible.
#pragma once

#include <functional>
#include <vector>

#include "agent/engine/dataplane/data_plane.h"
#include "agent/engine/op.h"

namespace outrider::agent {

// `ops[r]` is local rank r's validated op; all agree on kind, dtype, count, reduce op and root.
// `done` runs once the outputs are written; it fails (touching no buffer) only when alltoallv
// counts disagree between a sender and a receiver.
void ExecuteLocal(const std::vector<const ValidatedOp*>& ops, DataPlane& data,
                  DataPlane::Done done);

// MISMATCH naming the first pair of local ranks whose alltoallv counts disagree (`ops`: every
// rank of a single-node job), or Ok.
Status CheckLocalAlltoallvCounts(const std::vector<const ValidatedOp*>& ops);

}  // namespace outrider::agent
