// `outrider-bench local`: nccl-tests style sweep of single-node collectives through the agent,
// the 8-byte submit->completion round trip, and the memcpy baseline for the traffic ratio.
#pragma once

#include <cstdint>
#include <string>

#include "tools/bench/bench_common.h"

namespace outrider::bench {

struct LocalOptions {
  int clients = 2;
  uint64_t min_bytes = 8;
  uint64_t max_bytes = uint64_t{256} << 20;
  int factor = 2;
  std::string op = "allreduce";  // allreduce, broadcast, allgather, reduce_scatter, all
  std::string dtype = "f32";
  std::string redop = "sum";
  int iters = 0;  // 0: by size
  int rtt_iters = 20000;
  bool check = true;
};

int RunLocal(const CommonOptions& common, const LocalOptions& options);

}  // namespace outrider::bench
