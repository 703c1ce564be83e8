// `outrider-bench schedule`: replays one training step across the ranks of a launched job and
// times what the next forward pass waits for. Backward produces ~20 dense gradient buckets
// last-layer-first (≥ 256 MiB in all) and the sparse embedding gradient (the first layer) last;
// the forward pass then needs the embedding, then bucket 0, 1, ... in turn. The same step runs
// with every op at one equal priority (the agents then send in submission order: FIFO), with
// no hints at all (the agents' default policy: later submissions of an iteration go first), and
// with no hints plus row demand (the embedding op names the next batch's rows; the forward pass
// starts once those are in), interleaved, next to the embedding op alone.
#pragma once

#include <cstdint>
#include <vector>

#include "tools/bench/bench_common.h"

namespace outrider::bench {

struct ScheduleOptions {
  int rounds = 3;
  double backward_ms = 40;  // simulated compute per layer: backward takes about twice the forward
  double forward_ms = 20;
  uint64_t rows = 200000;  // embedding table
  uint64_t dim = 64;
  double density = 0.01;
  std::vector<uint64_t> buckets_mib = {30, 30, 16, 16, 16, 12, 12, 12, 12, 12,
                                       10, 10, 10, 10, 8,  8,  8,  8,  8,  8};
};

int RunSchedule(const CommonOptions& common, const ScheduleOptions& options);

}  // namespace outrider::bench
