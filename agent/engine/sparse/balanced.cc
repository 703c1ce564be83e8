// balanced: rows hash-partitioned to owner nodes with a fixed, data-independent hash (skewed ids
// still spread evenly), reduced at the owner and returned to everyone, streamed by id ranges
// (MakeOwnerStream). Row-level ids; each message carries its ids as a list or, when smaller, a
// bitmap.
#include "agent/engine/sparse/exchange.h"

namespace outrider::agent::sparse {

std::unique_ptr<Exchange> MakeBalanced(const Context& c) {
  int n = c.nodes;
  return MakeOwnerStream(
      c, Encoding::kSparse, [n](uint64_t id) { return RowOwner(id, n); },
      RangesFrom(c.range_starts, c.table.rows));
}

}  // namespace outrider::agent::sparse
