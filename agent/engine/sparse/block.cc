// block: for gradients whose non-zero rows cluster (or dense buffers that are mostly zero), only
// non-zero blocks of `block_rows` consecutive rows travel, to the owner of their contiguous range,
// and come back reduced. Ids cost one number per block instead of per row.
#include "agent/engine/sparse/exchange.h"

namespace outrider::agent::sparse {

std::unique_ptr<Exchange> MakeBlock(const Context& c) {
  return MakePartitioned(c, RangePartitioning(c, c.block_rows), Encoding::kBlocks, true);
}

}  // namespace outrider::agent::sparse
