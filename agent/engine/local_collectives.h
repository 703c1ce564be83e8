// Executes a collective whose every local participant has submitted: reads and writes the
// clients' shared buffers directly, in fixed rank order so results are bitwise reproducible.
#pragma once

#include <vector>

#include "agent/control/entry_validator.h"

namespace outrider::agent {

// `ops[r]` is local rank r's validated op; all agree on kind, dtype, count, reduce op and root.
// Fails (touching no buffer) only when alltoallv counts disagree between a sender and a receiver.
Status ExecuteLocal(const std::vector<const ValidatedOp*>& ops);

// Byte offset of rank `r`'s block in a packed alltoallv buffer.
uint64_t BlockOffset(const std::vector<int64_t>& counts, size_t r, uint64_t elem);

}  // namespace outrider::agent
