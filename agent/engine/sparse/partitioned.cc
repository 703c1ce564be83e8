// The owner scheme in whole messages, for sharded tables: each owner gets its share of this
// node's rows in one message and sums the shares in node order; the sum is the owner's result.
#include <algorithm>

#include "agent/engine/sparse/exchange.h"
#include "base/check.h"

namespace outrider::agent::sparse {
namespace {

class PartitionedExchange : public Exchange {
 public:
  PartitionedExchange(const Context& c, Partitioning p, Encoding enc)
      : c_(c),
        p_(std::move(p)),
        enc_(enc),
        shares_(static_cast<size_t>(c.nodes)),
        got_share_(static_cast<size_t>(c.nodes), false) {}

  void Start(Rows mine, std::vector<Outgoing>* out) override {
    std::vector<Rows> split(static_cast<size_t>(c_.nodes));
    if (p_.contiguous) {
      size_t begin = 0;
      for (int n = 0; n < c_.nodes; ++n) {
        uint64_t hi = p_.range(n).hi;
        size_t end = static_cast<size_t>(
            std::lower_bound(mine.ids.begin() + static_cast<long>(begin), mine.ids.end(), hi) -
            mine.ids.begin());
        if (n != c_.me) {
          out->push_back(
              {n, 0, Share(Encode(enc_, mine, begin, end, p_.range(n), c_.table, c_.block_rows))});
        } else {
          split[static_cast<size_t>(n)].ids.assign(mine.ids.begin() + static_cast<long>(begin),
                                                   mine.ids.begin() + static_cast<long>(end));
          split[static_cast<size_t>(n)].vals.assign(
              mine.vals.begin() + static_cast<long>(begin * c_.table.dim),
              mine.vals.begin() + static_cast<long>(end * c_.table.dim));
        }
        begin = end;
      }
    } else {
      for (size_t i = 0; i < mine.size(); ++i) {
        Rows& s = split[static_cast<size_t>(p_.owner(mine.ids[i]))];
        s.ids.push_back(mine.ids[i]);
        s.vals.insert(s.vals.end(), mine.row(i, c_.table.dim),
                      mine.row(i, c_.table.dim) + c_.table.dim);
      }
      for (int n = 0; n < c_.nodes; ++n) {
        if (n == c_.me) continue;
        const Rows& s = split[static_cast<size_t>(n)];
        out->push_back(
            {n, 0, Share(Encode(enc_, s, 0, s.size(), p_.range(n), c_.table, c_.block_rows))});
      }
    }
    shares_[static_cast<size_t>(c_.me)] = std::move(split[static_cast<size_t>(c_.me)]);
    got_share_[static_cast<size_t>(c_.me)] = true;
    started_ = true;
    MaybeReduce(out);
  }

  Status OnMessage(int from, uint32_t phase, const uint8_t* data, size_t len,
                   std::vector<Outgoing>* out) override {
    auto f = static_cast<size_t>(from);
    if (phase != 0) return ProtocolError("sparse: unexpected phase " + std::to_string(phase));
    if (got_share_[f]) return ProtocolError("sparse: a node sent its share twice");
    OUTRIDER_ASSIGN_OR_RETURN(shares_[f],
                              Decode(data, len, p_.range(c_.me), c_.table, c_.block_rows));
    for (uint64_t id : shares_[f].ids) {
      if (p_.owner(id) != c_.me)
        return ProtocolError("sparse: a node sent rows this node does not own");
    }
    got_share_[f] = true;
    MaybeReduce(out);
    return Status::Ok();
  }

 private:
  void MaybeReduce(std::vector<Outgoing>*) {
    if (!started_ || done_ || std::count(got_share_.begin(), got_share_.end(), true) != c_.nodes)
      return;
    std::vector<const Rows*> parts;
    for (const Rows& s : shares_) parts.push_back(&s);
    result_ = Sum(parts, c_.table);
    shares_.clear();
    done_ = true;
  }

  Context c_;
  Partitioning p_;
  Encoding enc_;
  bool started_ = false;
  std::vector<Rows> shares_;  // by sending node (own share included)
  std::vector<bool> got_share_;
};

}  // namespace

Partitioning RangePartitioning(const Context& c, uint64_t align) {
  int n = c.nodes;
  uint64_t rows = c.table.rows;
  uint64_t units = (rows + align - 1) / align;
  auto first = [=](int node) { return std::min(rows, ipc::ShardFirstRow(units, n, node) * align); };
  return Partitioning{[=](uint64_t id) {
                        // Owner of unit u is the largest node whose first unit is <= u.
                        uint64_t u = id / align;
                        int node = static_cast<int>(static_cast<unsigned __int128>(u) *
                                                    static_cast<unsigned>(n) / units);
                        while (node + 1 < n && ipc::ShardFirstRow(units, n, node + 1) <= u) ++node;
                        while (node > 0 && ipc::ShardFirstRow(units, n, node) > u) --node;
                        return node;
                      },
                      [=](int node) {
                        return IdRange{first(node), first(node + 1)};
                      },
                      true};
}

int ShardOwnerRank(uint64_t id, uint64_t rows, int world_size, ipc::ShardScheme scheme) {
  if (scheme == ipc::ShardScheme::kHash)
    return static_cast<int>(RowHash(id) % static_cast<uint64_t>(world_size));
  int r = static_cast<int>(static_cast<unsigned __int128>(id) * static_cast<unsigned>(world_size) /
                           rows);
  while (r + 1 < world_size && ipc::ShardFirstRow(rows, world_size, r + 1) <= id) ++r;
  while (r > 0 && ipc::ShardFirstRow(rows, world_size, r) > id) --r;
  return r;
}

Partitioning ShardPartitioning(const Context& c, ipc::ShardScheme scheme) {
  int world = c.ranks.world();
  uint64_t rows = c.table.rows;
  RankLayout ranks = c.ranks;
  auto owner = [=](uint64_t id) { return ranks.node_of(ShardOwnerRank(id, rows, world, scheme)); };
  if (scheme == ipc::ShardScheme::kHash)
    return Partitioning{owner, [rows](int) { return IdRange{0, rows}; }, false};
  return Partitioning{owner,
                      [=](int node) {
                        return IdRange{ipc::ShardFirstRow(rows, world, ranks.first_rank(node)),
                                       ipc::ShardFirstRow(rows, world, ranks.first_rank(node + 1))};
                      },
                      true};
}

std::unique_ptr<Exchange> MakePartitioned(const Context& c, Partitioning p, Encoding enc) {
  return std::make_unique<PartitionedExchange>(c, std::move(p), enc);
}

std::unique_ptr<Exchange> MakeShard(const Context& c, ipc::ShardScheme scheme) {
  return MakePartitioned(c, ShardPartitioning(c, scheme), Encoding::kSparse);
}

std::unique_ptr<Exchange> MakeReplicated(ipc::SparseAlgo algo, const Context& c) {
  switch (algo) {
    case ipc::SparseAlgo::kAllgather:
      return MakeAllgather(c);
    case ipc::SparseAlgo::kBalanced:
      return MakeBalanced(c);
    case ipc::SparseAlgo::kBlock:
      return MakeBlock(c);
    case ipc::SparseAlgo::kDense:
      return MakeDense(c);
    case ipc::SparseAlgo::kAuto:
      break;
  }
  OUTRIDER_CHECK(!"MakeReplicated needs a concrete algorithm (auto is resolved by the cost model)");
  return nullptr;
}

}  // namespace outrider::agent::sparse
