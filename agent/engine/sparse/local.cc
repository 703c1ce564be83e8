// Node-local halves of sparse collectives.
#include "agent/engine/sparse/local.h"

#include <algorithm>
#include <cstring>

#include "agent/engine/dataplane/host_memory.h"

namespace outrider::agent::sparse {

Context MakeContext(const ValidatedOp& o, const RankLayout& ranks, int me, uint64_t block_rows) {
  Context c;
  c.nodes = ranks.nodes();
  c.me = me;
  c.ranks = ranks;
  c.table = Table{o.rows, o.count, o.dtype};
  c.block_rows = block_rows;
  return c;
}

Result<Rows> CombineLocal(const std::vector<const ValidatedOp*>& ops, const Context& c) {
  std::vector<Rows> inputs(ops.size());
  Table t = c.table;
  if (ops[0]->kind == ipc::OpKind::kSparseLookup) t.dim = 0;  // ids only
  for (size_t l = 0; l < ops.size(); ++l) {
    ValidatedOp o = *ops[l];
    if (t.dim == 0) o.count = 0;
    OUTRIDER_ASSIGN_OR_RETURN(inputs[l],
                              ReadInput(o, t, c.ranks.first_rank(c.me) + static_cast<int>(l)));
  }
  // One client whose ids are sorted without repeats (as many trainers send them): its rows are the
  // sum already.
  if (inputs.size() == 1 && std::is_sorted(inputs[0].ids.begin(), inputs[0].ids.end()) &&
      std::adjacent_find(inputs[0].ids.begin(), inputs[0].ids.end()) == inputs[0].ids.end()) {
    return std::move(inputs[0]);
  }
  std::vector<const Rows*> parts;
  for (const Rows& r : inputs) parts.push_back(&r);
  return Sum(parts, t);
}

Result<std::vector<uint64_t>> CombineDemand(const std::vector<const ValidatedOp*>& ops,
                                            const Context& c) {
  Table ids_only = c.table;
  ids_only.dim = 0;
  std::vector<uint64_t> all;
  for (size_t l = 0; l < ops.size(); ++l) {
    if (ops[l]->demand_n == 0) continue;
    ValidatedOp q = *ops[l];
    q.ids = q.demand;
    q.nnz = q.demand_n;
    q.count = 0;
    Result<Rows> r = ReadInput(q, ids_only, c.ranks.first_rank(c.me) + static_cast<int>(l));
    if (!r.ok()) return r.status().Annotate("demand ids");
    all.insert(all.end(), r->ids.begin(), r->ids.end());
  }
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

void ReadShardRow(const std::vector<const ValidatedOp*>& ops, const Context& c, uint64_t id,
                  float* dst) {
  int world = c.ranks.world();
  int rank = ShardOwnerRank(id, c.table.rows, world, ipc::ShardScheme::kRange);
  const ValidatedOp& o = *ops[static_cast<size_t>(rank - c.ranks.first_rank(c.me))];
  uint64_t row = id - ipc::ShardFirstRow(c.table.rows, world, rank);
  LoadValues(c.table, HostBytes(o.send) + row * c.table.row_bytes(), c.table.dim, dst);
}

std::vector<OpReport> Deliver(const Rows& result, const std::vector<const ValidatedOp*>& ops,
                              const Context& c, size_t out_row) {
  std::vector<OpReport> reports(ops.size());
  ipc::OpKind kind = ops[0]->kind;
  int world = c.ranks.world();
  for (size_t l = 0; l < ops.size(); ++l) {
    const ValidatedOp& o = *ops[l];
    OpReport& rep = reports[l];
    int rank = c.ranks.first_rank(c.me) + static_cast<int>(l);
    if (kind == ipc::OpKind::kSparseAllreduce) {
      rep.result_rows = out_row + result.size();
      rep.status = WriteOutput(result, 0, result.size(), c.table, o, out_row);
    } else if (kind == ipc::OpKind::kSparseShard) {
      auto scheme = static_cast<ipc::ShardScheme>(o.algo);
      if (scheme == ipc::ShardScheme::kRange) {
        uint64_t lo = ipc::ShardFirstRow(c.table.rows, world, rank),
                 hi = ipc::ShardFirstRow(c.table.rows, world, rank + 1);
        auto b = static_cast<size_t>(std::lower_bound(result.ids.begin(), result.ids.end(), lo) -
                                     result.ids.begin());
        auto e = static_cast<size_t>(std::lower_bound(result.ids.begin(), result.ids.end(), hi) -
                                     result.ids.begin());
        rep.result_rows = e - b;
        rep.status = WriteOutput(result, b, e, c.table, o);
      } else {
        Rows mine;
        for (size_t i = 0; i < result.size(); ++i) {
          if (ShardOwnerRank(result.ids[i], c.table.rows, world, scheme) != rank) continue;
          mine.ids.push_back(result.ids[i]);
          mine.vals.insert(mine.vals.end(), result.row(i, c.table.dim),
                           result.row(i, c.table.dim) + c.table.dim);
        }
        rep.result_rows = mine.size();
        rep.status = WriteOutput(mine, 0, mine.size(), c.table, o);
      }
    } else {  // lookup: rows in the order this client asked (validated: capacity >= nnz)
      Table ids_only = c.table;
      ids_only.dim = 0;
      ValidatedOp q = o;
      q.count = 0;
      Result<Rows> asked = ReadInput(q, ids_only, rank);
      if (!asked.ok()) {
        rep.status = asked.status();
        continue;
      }
      rep.result_rows = asked->size();
      std::vector<float> row(c.table.dim);
      for (size_t i = 0; i < asked->size(); ++i) {
        uint64_t id = asked->ids[i];
        auto it = std::lower_bound(result.ids.begin(), result.ids.end(), id);
        if (it == result.ids.end() || *it != id) {
          // The client changed its ids while the op ran: its own fault, nobody else's.
          rep.status = InvalidArgument("sparse_lookup: rank " + std::to_string(rank) +
                                       " changed its ids during the op");
          break;
        }
        size_t k = static_cast<size_t>(it - result.ids.begin());
        StoreValues(c.table, result.row(k, c.table.dim), c.table.dim,
                    HostBytes(o.recv) + i * c.table.row_bytes());
      }
    }
  }
  return reports;
}

std::vector<OpReport> ExecuteLocal(const std::vector<const ValidatedOp*>& ops, int local_size,
                                   Status* overall) {
  Context c = MakeContext(*ops[0], RankLayout::Even(1, local_size), 0, 8);
  Result<Rows> mine = CombineLocal(ops, c);
  if (!mine.ok()) {
    *overall = mine.status();
    return std::vector<OpReport>(ops.size());
  }
  *overall = Status::Ok();
  if (ops[0]->kind == ipc::OpKind::kSparseLookup) {
    Rows& r = *mine;
    r.vals.resize(r.size() * c.table.dim);
    for (size_t i = 0; i < r.size(); ++i)
      ReadShardRow(ops, c, r.ids[i], r.vals.data() + i * c.table.dim);
  }
  std::vector<OpReport> reports;
  if (ops[0]->kind == ipc::OpKind::kSparseAllreduce) {
    // Demanded rows first, as on several nodes (there they arrive first).
    Result<std::vector<uint64_t>> demand = CombineDemand(ops, c);
    if (!demand.ok()) {
      *overall = demand.status();
      return std::vector<OpReport>(ops.size());
    }
    Rows first, rest;
    SplitByDemand(std::move(*mine), *demand, c.table.dim, &first, &rest);
    reports = Deliver(first, ops, c);
    std::vector<OpReport> tail = Deliver(rest, ops, c, first.size());
    for (size_t l = 0; l < reports.size(); ++l) {
      if (reports[l].status.ok()) reports[l] = tail[l];
      reports[l].demand_rows = first.size();
      if (!reports[l].status.ok()) reports[l].result_rows = first.size() + rest.size();
    }
  } else {
    reports = Deliver(*mine, ops, c);
  }
  for (OpReport& r : reports) r.algo = static_cast<uint32_t>(ops[0]->algo);
  return reports;
}

}  // namespace outrider::agent::sparse
