// Executes a collective whose every local participant has submitted: reads and writes the
// clients' shared buffers directly, in fixed rank order so results are bitwise reproducible.
#pragma once

#include <vector>

#include "agent/control/entry_validator.h"

namespace outrider::agent::engine {

// `ops[r]` is local rank r's validated op; all agree on kind, dtype, count, reduce op and root.
void ExecuteLocal(const std::vector<const ValidatedOp*>& ops);

}  // namespace outrider::agent::engine
