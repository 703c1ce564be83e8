// Byte accounting of the sparse algorithms at any node count: replays id streams (the bench's Zipf
// streams, or ids from a file) through the same encodings, partitionings, chunking and
// announcements the agents use, and reports per-node wire bytes next to the bounds in
// docs/design.md. Used by `outrider-bench sparse-sim` and, for the configuration it measures, by
// `outrider-bench sparse`, whose rows then show prediction and measurement side by side.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "agent/engine/sparse/cost_model.h"
#include "ipc/protocol.h"

namespace outrider::bench {

struct SimConfig {
  uint64_t rows = 1000000;
  uint64_t dim = 128;
  ipc::DType dtype = ipc::DType::kF32;
  int nodes = 4;
  int local = 1;  // ranks per node
  uint64_t per_rank_nnz = 10000;
  double zipf_s = 1.05;
  uint64_t seed = 1;
  uint64_t block_rows = 8;         // the agents' sparse_block_rows
  uint64_t chunk_bytes = 1 << 20;  // the agents' ring_chunk_bytes
  agent::sparse::TimeParams time;  // what auto's choice assumes
};

struct SimAlgo {
  ipc::SparseAlgo algo;
  std::vector<uint64_t> sent, recv;  // per node, headers and announcements included
  std::vector<uint64_t> returned;    // per node, of sent: owners' returns (balanced, block)
  agent::sparse::ExchangeWork work;  // for the time model (agent/engine/sparse/cost_model.h)
  uint64_t max_sent = 0, max_recv = 0;
  double mean_sent = 0;
  double bound = 0;  // per node, docs/design.md#sparse-embedding-gradients
};

struct SimResult {
  std::vector<uint64_t> node_nnz;  // rows per node contribution
  uint64_t union_rows = 0;
  double density = 0;  // mean node nnz / rows
  double union_density = 0;
  std::vector<SimAlgo> algos;  // allgather, balanced, block, dense, then auto (what it picks)
  ipc::SparseAlgo auto_choice = ipc::SparseAlgo::kAllgather;
};

// Per-rank ids: rank r of the job.
using IdSource = std::vector<std::vector<int64_t>>;
IdSource ZipfSource(const SimConfig& c);
SimResult Simulate(const SimConfig& c, const IdSource& ids);
// docs/design.md#sparse-embedding-gradients lower bound per node for `algo` (bytes).
double Bound(ipc::SparseAlgo algo, int nodes, double table_bytes, double d, double d_union,
             double eps, double block_d, double block_d_union);

}  // namespace outrider::bench
