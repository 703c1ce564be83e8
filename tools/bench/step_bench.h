// `outrider-bench step`: the job the demo shows. Every rank of a launched job (tools/outrider
// run) does training-like steps: dense gradient buckets all-reduced asynchronously and one sparse
// embedding gradient (Zipf rows of a table), synced through the node agents. The same steps run
// with the sparse sync done by the cost model's choice (auto), by allgather (what DDP/Horovod
// do) and by a dense allreduce of the whole table, interleaved, and every result is checked.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/bench/bench_common.h"

namespace outrider::bench {

struct StepOptions {
  uint64_t rows = 200000;
  uint64_t dim = 64;
  double density = 0.01;
  double zipf = 1.05;
  std::vector<uint64_t> buckets = {uint64_t{4} << 20, uint64_t{2} << 20, uint64_t{1} << 20,
                                   uint64_t{1} << 20};
  int steps = 6;
  std::vector<std::string> modes = {"auto", "allgather", "dense"};
};

int RunStep(const CommonOptions& common, const StepOptions& options);

}  // namespace outrider::bench
