// `outrider-bench train`: a training-like loop through the agent (the demo's main job): parameters
// broadcast from rank 0, then per step gradient buckets all-reduced asynchronously in backward
// order, a loss scalar all-gathered, every result verified, timings summarized per op.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/bench/bench_common.h"

namespace outrider::bench {

struct TrainOptions {
  int clients = 4;
  int steps = 20;
  std::vector<std::string> buckets = {"1M", "4M", "8M", "16M", "25M"};
};

int RunTrain(const CommonOptions& common, const TrainOptions& options);

}  // namespace outrider::bench
