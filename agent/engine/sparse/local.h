// The node-local halves of a sparse collective: combining the local clients' contributions into
// the node's one contribution (validating every id), and handing the node's result back to each
// local client (the whole union, the client's own shard, or the rows it asked for).
// Thread-safety: pure functions over client memory the caller keeps mapped.
#pragma once

#include <vector>

#include "agent/engine/op_report.h"
#include "agent/engine/sparse/exchange.h"

namespace outrider::agent::sparse {

// Context of a sparse op from its (validated) local ops.
Context MakeContext(const ValidatedOp& o, const RankLayout& ranks, int me, uint64_t block_rows);
// Allreduce and shard: the sum of the local contributions (local rank order). Lookup: the
// sorted unique ids the local clients ask for (values empty).
Result<Rows> CombineLocal(const std::vector<const ValidatedOp*>& ops, const Context& c);
// Sparse allreduce: the sorted unique ids the local clients demand (checked against the table).
Result<std::vector<uint64_t>> CombineDemand(const std::vector<const ValidatedOp*>& ops,
                                            const Context& c);
// Writes the node's result to each local client; one report per local rank. Allreduce writes
// from output row `out_row` on (the demanded rows went before) and reports out_row + rows.
std::vector<OpReport> Deliver(const Rows& result, const std::vector<const ValidatedOp*>& ops,
                              const Context& c, size_t out_row = 0);
// Copies an owned row of a range-sharded table out of the owning local client's shard.
void ReadShardRow(const std::vector<const ValidatedOp*>& ops, const Context& c, uint64_t id,
                  float* dst);
// A whole single-node sparse op.
std::vector<OpReport> ExecuteLocal(const std::vector<const ValidatedOp*>& ops, int local_size,
                                   Status* overall);

}  // namespace outrider::agent::sparse
