// `outrider-bench allreduce|broadcast|allgather|reducescatter`: one rank per process, started by
// a launcher (tools/outrider run) with torchrun's environment, talking to its node's agent.
// Rank 0 prints an nccl-tests style table and writes the JSON rows.
#pragma once

#include <cstdint>
#include <string>

#include "tools/bench/bench_common.h"

namespace outrider::bench {

struct CollectiveOptions {
  std::string op;
  uint64_t min_bytes = 8;
  uint64_t max_bytes = uint64_t{64} << 20;
  int factor = 2;
  int iters = 0;  // 0: by size
  int warmup = 2;
  int latency_iters = 0;  // 8-byte allreduce round trips (p50/p99)
};

int RunCollective(const CommonOptions& common, const CollectiveOptions& options);

}  // namespace outrider::bench
