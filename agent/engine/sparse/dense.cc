// dense: the whole table as a reduce-scatter to contiguous owner ranges and an allgather back,
// with a presence bitmap so the result holds the same rows as every other algorithm. Cheapest
// once the union of rows covers most of the table.
#include "agent/engine/sparse/exchange.h"

namespace outrider::agent::sparse {

std::unique_ptr<Exchange> MakeDense(const Context& c) {
  return MakePartitioned(c, RangePartitioning(c, 8), Encoding::kDense, true);
}

}  // namespace outrider::agent::sparse
