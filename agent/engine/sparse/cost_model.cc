// Cost model for replicated sparse allreduce.
#include "agent/engine/sparse/cost_model.h"

#include <algorithm>
#include <cmath>

namespace outrider::agent::sparse {
namespace {

// Union of independent draws: rows * (1 - prod(1 - n_i / rows)).
double IndependentUnion(const std::vector<double>& n, double space) {
  double miss = 1.0;
  for (double x : n) miss *= 1.0 - std::min(1.0, x / space);
  return space * (1.0 - miss);
}

}  // namespace

uint64_t WireBytes(uint64_t payload, uint64_t chunk_bytes, uint64_t chunk_overhead) {
  uint64_t pieces = std::max<uint64_t>(1, (payload + chunk_bytes - 1) / chunk_bytes);
  return payload + pieces * chunk_overhead;
}

uint64_t DenseRangeWireBytes(IdRange range, const Table& t, uint64_t chunk_bytes,
                             uint64_t chunk_overhead) {
  uint64_t bytes = 0;
  for (const IdRange& b : DenseBlocks(range, t))
    bytes += WireBytes(DenseBlockMessageBytes(b, t), chunk_bytes, chunk_overhead);
  return bytes;
}

Prediction Predict(ipc::SparseAlgo algo, const CostInputs& in) {
  const Context& c = in.ctx;
  const Table& t = c.table;
  size_t N = in.nodes.size();
  Prediction p;
  p.algo = algo;
  p.sent.assign(N, 0);
  p.recv.assign(N, 0);
  p.returned.assign(N, 0);
  auto wire = [&](uint64_t payload) {
    return WireBytes(payload, in.chunk_bytes, in.chunk_overhead);
  };
  auto add = [&](size_t from, size_t to, uint64_t bytes) {
    p.sent[from] += bytes;
    p.recv[to] += bytes;
  };
  double total_nnz = 0;
  std::vector<double> nnz, blocks;
  for (const NodeAnnounce& a : in.nodes) {
    total_nnz += static_cast<double>(a.nnz);
    nnz.push_back(static_cast<double>(a.nnz));
    blocks.push_back(static_cast<double>(a.blocks));
  }
  double rows = static_cast<double>(t.rows);
  Context pc = c;
  pc.nodes = static_cast<int>(N);
  switch (algo) {
    case ipc::SparseAlgo::kAllgather: {
      // The agreed ranges hold about equal shares of every node's rows (they are cut at quantiles).
      std::vector<IdRange> ranges = RangesFrom(c.range_starts, t.rows);
      for (size_t i = 0; i < N; ++i) {
        uint64_t b = 0, K = ranges.size();
        for (uint64_t k = 0; k < K; ++k) {
          uint64_t share = in.nodes[i].nnz * (k + 1) / K - in.nodes[i].nnz * k / K;
          b += wire(RangeMessageBytes(share, ranges[k], t));
        }
        for (size_t j = 0; j < N; ++j) {
          if (j != i) add(i, j, b);
        }
      }
      break;
    }
    case ipc::SparseAlgo::kBalanced:
    case ipc::SparseAlgo::kBlock: {
      // Streamed by the agreed ranges; the hash spreads every node's rows (blocks) and the union's
      // evenly over the owners, and the quantile cuts spread them evenly over the ranges.
      bool blk = algo == ipc::SparseAlgo::kBlock;
      Encoding enc = blk ? Encoding::kBlocks : Encoding::kSparse;
      std::vector<IdRange> ranges = blk ? AlignedRanges(c.range_starts, t.rows, c.block_rows)
                                        : RangesFrom(c.range_starts, t.rows);
      double parts = static_cast<double>(N * ranges.size());
      double u;
      if (blk) {
        double space = std::ceil(rows / static_cast<double>(c.block_rows)), total_blocks = 0;
        for (double b : blocks) total_blocks += b;
        u = in.block_union_ratio >= 0 ? std::min(space, in.block_union_ratio * total_blocks)
                                      : IndependentUnion(blocks, space);
      } else {
        u = in.union_ratio >= 0 ? std::min(rows, in.union_ratio * total_nnz)
                                : IndependentUnion(nnz, rows);
      }
      auto per_part_u = static_cast<uint64_t>(std::llround(u / parts));
      for (size_t i = 0; i < N; ++i) {
        auto share = static_cast<uint64_t>(std::llround((blk ? blocks[i] : nnz[i]) / parts));
        uint64_t b = 0, back = 0;
        for (const IdRange& r : ranges) {
          b += wire(OwnerMessageBytes(enc, share, r, t, c.block_rows));
          back += wire(OwnerMessageBytes(enc, per_part_u, r, t, c.block_rows));
        }
        for (size_t j = 0; j < N; ++j) {
          if (j == i) continue;
          add(i, j, b + back);
          p.returned[i] += back;
        }
      }
      break;
    }
    case ipc::SparseAlgo::kDense: {
      Partitioning part = RangePartitioning(pc, 8);
      for (size_t i = 0; i < N; ++i) {
        for (size_t j = 0; j < N; ++j) {
          if (j == i) continue;
          add(i, j,
              DenseRangeWireBytes(part.range(static_cast<int>(j)), t, in.chunk_bytes,
                                  in.chunk_overhead));
          add(i, j,
              DenseRangeWireBytes(part.range(static_cast<int>(i)), t, in.chunk_bytes,
                                  in.chunk_overhead));
        }
      }
      break;
    }
    case ipc::SparseAlgo::kAuto:
      break;
  }
  p.work = WorkOf(algo, p.sent, p.recv, p.returned, StreamPieces(algo, pc));
  p.seconds = ExchangeSeconds(p.work, in.time);
  return p;
}

size_t StreamPieces(ipc::SparseAlgo algo, const Context& c) {
  switch (algo) {
    case ipc::SparseAlgo::kAllgather:
    case ipc::SparseAlgo::kBalanced:
      return RangesFrom(c.range_starts, c.table.rows).size();
    case ipc::SparseAlgo::kBlock:
      return AlignedRanges(c.range_starts, c.table.rows, c.block_rows).size();
    case ipc::SparseAlgo::kDense:
      return std::max<size_t>(1, DenseBlocks(RangePartitioning(c, 8).range(0), c.table).size());
    case ipc::SparseAlgo::kAuto:
      break;
  }
  return 1;
}

ExchangeWork WorkOf(ipc::SparseAlgo algo, const std::vector<uint64_t>& sent,
                    const std::vector<uint64_t>& recv, const std::vector<uint64_t>& returned,
                    size_t pieces) {
  ExchangeWork w;
  double k = static_cast<double>(std::max<size_t>(1, pieces));
  for (size_t i = 0; i < sent.size(); ++i) {
    w.wire = std::max({w.wire, static_cast<double>(sent[i]), static_cast<double>(recv[i])});
    w.summed = std::max(w.summed, static_cast<double>(recv[i]));
    if (i < returned.size())
      w.tail_wire = std::max(w.tail_wire, static_cast<double>(returned[i]) / k);
  }
  // After its last byte a node sums the last piece (allgather: the last range of every node;
  // balanced, block: its owners' last shares, then merges their returns; dense: an owner's block).
  w.tail_sum = w.summed / k;
  // The announcement, and the last piece's own trip; the owner schemes' last range makes two (its
  // shares, then its return), as dense's last block does.
  w.rounds = algo == ipc::SparseAlgo::kAllgather ? 2 : 3;
  if (algo == ipc::SparseAlgo::kDense) w.tail_wire = w.wire / k / 2;
  return w;
}

double ExchangeSeconds(const ExchangeWork& w, const TimeParams& p) {
  return w.rounds * p.round_s +
         std::max(w.wire / p.link_bytes_per_s, w.summed / p.sum_bytes_per_s) +
         w.tail_wire / p.link_bytes_per_s + w.tail_sum / p.sum_bytes_per_s;
}

bool DenseFits(uint64_t rows, uint64_t dim) {
  return dim != 0 && rows <= kMaxDenseTableBytes / sizeof(float) / dim;
}

Prediction Choose(const CostInputs& in) {
  Prediction best;
  bool first = true;
  for (auto a : {ipc::SparseAlgo::kAllgather, ipc::SparseAlgo::kBalanced, ipc::SparseAlgo::kBlock,
                 ipc::SparseAlgo::kDense}) {
    if (a == ipc::SparseAlgo::kDense && !DenseFits(in.ctx.table.rows, in.ctx.table.dim)) continue;
    Prediction p = Predict(a, in);
    if (first || p.seconds < best.seconds) best = std::move(p);
    first = false;
  }
  return best;
}

CoalescePrediction ChooseCoalesce(const CoalesceInputs& in, const CoalesceRates& rates) {
  CoalescePrediction p;
  auto n = static_cast<double>(in.nnz);
  double row_bytes = static_cast<double>(in.id_bytes + 4 * in.dim);
  double value_bytes = 4.0 * static_cast<double>(in.dim);
  bool sorted = !in.seen || in.strictly_increasing;
  double ratio = in.seen ? std::clamp(in.unique_ratio, 0.0, 1.0) : 1.0;
  double host_sort_s = sorted || in.nnz < 2 ? 0 : rates.host_sort_ns * 1e-9 * n * std::log2(n);
  p.staged_s = n * row_bytes / rates.pcie_bytes_per_s + host_sort_s +
               n * value_bytes / rates.host_sum_bytes_per_s;
  double unique = n * ratio;
  p.coalesced_s = rates.gpu_launch_s + n / rates.gpu_keys_per_s +
                  2 * n * value_bytes / rates.gpu_bytes_per_s +
                  unique * row_bytes / rates.pcie_bytes_per_s +
                  unique * value_bytes / rates.host_sum_bytes_per_s;
  p.on_gpu = in.nnz > 0 && p.coalesced_s < p.staged_s;
  return p;
}

}  // namespace outrider::agent::sparse
