// `outrider-bench sparse`: sparse embedding-gradient allreduce across the ranks of a job started
// by a launcher (tools/outrider run), for each algorithm: time, measured wire bytes of the busiest
// node, the simulator's prediction for the same ids, and the bound in docs/design.md.
// `outrider-bench sparse-sim`: the simulator alone, for any node count.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/bench/bench_common.h"

namespace outrider::bench {

struct SparseOptions {
  uint64_t rows = 1000000;
  uint64_t dim = 128;
  double density = 0.01;  // distinct rows per rank / rows
  double zipf = 1.05;
  uint64_t seed = 1;
  std::vector<std::string> algos = {"allgather", "balanced", "block", "dense", "auto"};
  int iters = 5;
  int warmup = 1;
  // Each algorithm's turn runs ops back to back for about this long (0: one op per turn), so a
  // 7 ms op is timed as often as a 200 ms one fills the same slice of time.
  double turn_ms = 0;
  uint64_t block_rows = 8;                              // must match the agents' sparse_block_rows
  uint64_t chunk_bytes = 1 << 20;                       // must match the agents' ring_chunk_bytes
  std::vector<int> sim_nodes = {4, 16, 64, 256, 1024};  // sparse-sim only
  int sim_local = 1;
  // sparse-sim: the time model's parameters (agent/engine/sparse/cost_model.h, TimeParams); its
  // times and auto's choice assume them.
  double model_gbit = 100;     // per node link
  double model_round_us = 50;  // one message round between agents
  double model_sum_gbyte = 2;  // received bytes one agent decodes and sums per second (GB)
};

int RunSparse(const CommonOptions& common, const SparseOptions& options);
int RunSparseSim(const CommonOptions& common, const SparseOptions& options);

}  // namespace outrider::bench
