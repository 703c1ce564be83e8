// balanced: rows hash-partitioned to owner nodes with a fixed, data-independent hash (skewed ids
// still spread evenly), reduced at the owner and returned to everyone. Row-level ids; each message
// carries its ids as a list or, when smaller, a bitmap.
#include "agent/engine/sparse/exchange.h"

namespace outrider::agent::sparse {

std::unique_ptr<Exchange> MakeBalanced(const Context& c) {
  return MakePartitioned(c, HashPartitioning(c), Encoding::kSparse, true);
}

}  // namespace outrider::agent::sparse
