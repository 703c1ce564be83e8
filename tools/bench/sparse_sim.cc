// Sparse byte accounting (see sparse_sim.h).
#include "tools/bench/sparse_sim.h"

#include <algorithm>

#include "agent/engine/sparse/codec.h"
#include "agent/engine/sparse/cost_model.h"
#include "agent/engine/sparse/exchange.h"
#include "agent/net/peer_protocol.h"
#include "tools/bench/sparse_ids.h"

namespace outrider::bench {

using agent::sparse::Encoding;
using agent::sparse::IdRange;
using ipc::SparseAlgo;

IdSource ZipfSource(const SimConfig& c) {
  ZipfTable z(c.rows, c.zipf_s);
  IdSource ids;
  for (int r = 0; r < c.nodes * c.local; ++r) ids.push_back(z.Draw(c.per_rank_nnz, c.seed, r));
  return ids;
}

double Bound(SparseAlgo algo, int nodes, double m, double d, double du, double eps, double bd,
             double bdu) {
  double n = nodes;
  switch (algo) {
    case SparseAlgo::kAllgather:
      return (n - 1) * d * m * (1 + eps);
    case SparseAlgo::kBalanced:
      return (n - 1) / n * (d * m * (1 + eps) + du * m);
    case SparseAlgo::kBlock:
      return (n - 1) / n * (bd * m + bdu * m);
    case SparseAlgo::kDense:
      return 2 * (n - 1) / n * m;
    case SparseAlgo::kAuto:
      break;
  }
  return 0;
}

SimResult Simulate(const SimConfig& c, const IdSource& ids) {
  int N = c.nodes;
  agent::sparse::Table t{c.rows, c.dim, c.dtype};
  agent::sparse::Context ctx{N, 0, agent::RankLayout::Even(N, c.local), t, c.block_rows, {}};
  // Node contributions: the union of the node's ranks' ids.
  std::vector<std::vector<uint64_t>> node(static_cast<size_t>(N));
  for (int r = 0; r < N * c.local; ++r) {
    auto& v = node[static_cast<size_t>(r / c.local)];
    for (int64_t id : ids[static_cast<size_t>(r)]) v.push_back(static_cast<uint64_t>(id));
  }
  std::vector<uint8_t> in_union(c.rows, 0);
  SimResult res;
  for (auto& v : node) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    for (uint64_t id : v) in_union[id] = 1;
    res.node_nnz.push_back(v.size());
  }
  std::vector<uint64_t> uni;
  for (uint64_t id = 0; id < c.rows; ++id) {
    if (in_union[id]) uni.push_back(id);
  }
  res.union_rows = uni.size();
  // Announcements carry each node's id quantiles (allgather's ranges are cut where they agree).
  std::vector<std::vector<uint64_t>> quantiles;
  for (const auto& v : node)
    quantiles.push_back(agent::sparse::IdQuantiles(v, agent::sparse::kAllgatherRanges));
  auto announce_of = [&](int i) {
    return sizeof(agent::PeerHeader) + sizeof(agent::SparseAnnounce) +
           8 * quantiles[static_cast<size_t>(i)].size();
  };
  auto wire = [&](uint64_t payload) {
    return agent::sparse::WireBytes(payload, c.chunk_bytes, sizeof(agent::PeerHeader));
  };
  auto blocks_of = [&](const std::vector<uint64_t>& v) {
    uint64_t n = 0;
    for (size_t i = 0; i < v.size(); ++i)
      n += i == 0 || v[i] / c.block_rows != v[i - 1] / c.block_rows;
    return n;
  };
  auto start = [&](SparseAlgo a) {
    SimAlgo s;
    s.algo = a;
    s.sent.assign(static_cast<size_t>(N), 0);
    s.recv.assign(static_cast<size_t>(N), 0);
    s.returned.assign(static_cast<size_t>(N), 0);
    for (int i = 0; i < N; ++i) {
      for (int j = 0; j < N; ++j) {
        if (j == i) continue;
        s.sent[static_cast<size_t>(i)] += announce_of(i);
        s.recv[static_cast<size_t>(j)] += announce_of(i);
      }
    }
    return s;
  };
  auto add = [](SimAlgo& s, int from, int to, uint64_t bytes) {
    s.sent[static_cast<size_t>(from)] += bytes;
    s.recv[static_cast<size_t>(to)] += bytes;
  };
  std::vector<SimAlgo> algos;
  std::vector<uint64_t> starts =
      agent::sparse::MergeQuantiles(quantiles);  // as the agents agree them
  {                                              // allgather: one message per agreed id range
    SimAlgo s = start(SparseAlgo::kAllgather);
    std::vector<IdRange> ranges = agent::sparse::RangesFrom(starts, c.rows);
    for (int i = 0; i < N; ++i) {
      const std::vector<uint64_t>& v = node[static_cast<size_t>(i)];
      uint64_t b = 0;
      for (const IdRange& r : ranges) {
        uint64_t n = static_cast<uint64_t>(std::lower_bound(v.begin(), v.end(), r.hi) -
                                           std::lower_bound(v.begin(), v.end(), r.lo));
        b += wire(agent::sparse::RangeMessageBytes(n, r, t));
      }
      for (int j = 0; j < N; ++j) {
        if (j != i) add(s, i, j, b);
      }
    }
    algos.push_back(s);
  }
  uint64_t union_blocks = blocks_of(uni), node_blocks_total = 0;
  for (const auto& v : node) node_blocks_total += blocks_of(v);
  // balanced and block: per agreed range, one message from every node to every owner and one from
  // every owner back to every node; what each holds is counted from the ids (block: non-zero
  // blocks, which the aligned ranges never split).
  auto owner_stream = [&](SparseAlgo a) {
    SimAlgo s = start(a);
    bool blk = a == SparseAlgo::kBlock;
    Encoding enc = blk ? Encoding::kBlocks : Encoding::kSparse;
    std::vector<IdRange> ranges = blk ? agent::sparse::AlignedRanges(starts, c.rows, c.block_rows)
                                      : agent::sparse::RangesFrom(starts, c.rows);
    // counts[k][owner]: rows (blocks) of `v` in range k that owner holds.
    auto count = [&](const std::vector<uint64_t>& v) {
      std::vector<std::vector<uint64_t>> counts(ranges.size(),
                                                std::vector<uint64_t>(static_cast<size_t>(N), 0));
      size_t k = 0;
      for (size_t i = 0; i < v.size(); ++i) {
        while (v[i] >= ranges[k].hi) ++k;
        if (blk && i > 0 && v[i] / c.block_rows == v[i - 1] / c.block_rows) continue;
        int owner = blk ? agent::sparse::BlockOwner(v[i], c.block_rows, N)
                        : agent::sparse::RowOwner(v[i], N);
        ++counts[k][static_cast<size_t>(owner)];
      }
      return counts;
    };
    auto owned = count(uni);
    for (int i = 0; i < N; ++i) {
      auto share = count(node[static_cast<size_t>(i)]);
      for (int j = 0; j < N; ++j) {
        if (j == i) continue;
        for (size_t k = 0; k < ranges.size(); ++k) {
          add(s, i, j,
              wire(agent::sparse::OwnerMessageBytes(enc, share[k][static_cast<size_t>(j)],
                                                    ranges[k], t, c.block_rows)));
          uint64_t back = wire(agent::sparse::OwnerMessageBytes(
              enc, owned[k][static_cast<size_t>(i)], ranges[k], t, c.block_rows));
          add(s, i, j, back);
          s.returned[static_cast<size_t>(i)] += back;
        }
      }
    }
    return s;
  };
  algos.push_back(owner_stream(SparseAlgo::kBalanced));
  algos.push_back(owner_stream(SparseAlgo::kBlock));
  {  // dense
    SimAlgo s = start(SparseAlgo::kDense);
    auto part = agent::sparse::RangePartitioning(ctx, 8);
    for (int i = 0; i < N; ++i) {
      for (int j = 0; j < N; ++j) {
        if (j == i) continue;
        add(s, i, j,
            agent::sparse::DenseRangeWireBytes(part.range(j), t, c.chunk_bytes,
                                               sizeof(agent::PeerHeader)));
        add(s, i, j,
            agent::sparse::DenseRangeWireBytes(part.range(i), t, c.chunk_bytes,
                                               sizeof(agent::PeerHeader)));
      }
    }
    algos.push_back(s);
  }
  // auto: the cost model on what the agents announce, with the union growth a repeated step
  // has seen (the bench times steps after a warm-up).
  agent::sparse::CostInputs in;
  in.ctx = ctx;
  in.ctx.range_starts = starts;
  uint64_t sum_nnz = 0;
  for (int i = 0; i < N; ++i) {
    in.nodes.push_back(
        {node[static_cast<size_t>(i)].size(), blocks_of(node[static_cast<size_t>(i)])});
    sum_nnz += node[static_cast<size_t>(i)].size();
  }
  if (sum_nnz > 0) in.union_ratio = static_cast<double>(uni.size()) / static_cast<double>(sum_nnz);
  if (node_blocks_total > 0)
    in.block_union_ratio =
        static_cast<double>(union_blocks) / static_cast<double>(node_blocks_total);
  in.chunk_bytes = c.chunk_bytes;
  in.chunk_overhead = sizeof(agent::PeerHeader);
  in.time = c.time;
  res.auto_choice = agent::sparse::Choose(in).algo;
  for (const SimAlgo& s : algos) {
    if (s.algo == res.auto_choice) {
      SimAlgo a = s;
      a.algo = SparseAlgo::kAuto;
      algos.push_back(a);
      break;
    }
  }
  double m = static_cast<double>(c.rows) * static_cast<double>(t.row_bytes());
  double mean_nnz = static_cast<double>(sum_nnz) / N;
  res.density = mean_nnz / static_cast<double>(c.rows);
  res.union_density = static_cast<double>(uni.size()) / static_cast<double>(c.rows);
  double eps = 4.0 / static_cast<double>(t.row_bytes());
  double blocks_space = static_cast<double>((c.rows + c.block_rows - 1) / c.block_rows);
  double bd = static_cast<double>(node_blocks_total) / N / blocks_space,
         bdu = static_cast<double>(union_blocks) / blocks_space;
  agent::sparse::Context agreed = ctx;
  agreed.range_starts = starts;
  for (SimAlgo& s : algos) {
    SparseAlgo ran = s.algo == SparseAlgo::kAuto ? res.auto_choice : s.algo;
    s.work = agent::sparse::WorkOf(ran, s.sent, s.recv, s.returned,
                                   agent::sparse::StreamPieces(ran, agreed));
    s.max_sent = *std::max_element(s.sent.begin(), s.sent.end());
    s.max_recv = *std::max_element(s.recv.begin(), s.recv.end());
    double total = 0;
    for (uint64_t b : s.sent) total += static_cast<double>(b);
    s.mean_sent = total / N;
    SparseAlgo a = s.algo == SparseAlgo::kAuto ? res.auto_choice : s.algo;
    s.bound = Bound(a, N, m, res.density, res.union_density, eps, bd, bdu);
  }
  res.algos = std::move(algos);
  return res;
}

}  // namespace outrider::bench
