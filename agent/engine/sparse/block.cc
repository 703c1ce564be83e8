// block: for gradients whose non-zero rows cluster (or dense buffers that are mostly zero), only
// non-zero blocks of `block_rows` consecutive rows travel, to the owner of the block (a fixed hash
// of its number: hot blocks, which Zipf-skewed ids crowd at the front of the table, still spread
// evenly), and come back reduced; streamed by id ranges cut at block boundaries
// (MakeOwnerStream). Ids cost one number per block instead of per row.
#include "agent/engine/sparse/exchange.h"

namespace outrider::agent::sparse {

std::unique_ptr<Exchange> MakeBlock(const Context& c) {
  int n = c.nodes;
  uint64_t b = c.block_rows;
  return MakeOwnerStream(
      c, Encoding::kBlocks, [n, b](uint64_t id) { return BlockOwner(id, b, n); },
      AlignedRanges(c.range_starts, c.table.rows, b));
}

}  // namespace outrider::agent::sparse
