// `outrider-bench local --device cuda --against-nccl`: dense allreduce of device buffers through
// the agent's own NCCL communicators (gpu_mode ipc, gpu_nccl = force) against the same allreduce
// with the ranks calling NCCL themselves (the nccl-tests way), in the same run, interleaved: one
// rank per GPU, rank r on GPU --gpu + r. Times are submit -> stream synchronized; bus bandwidth
// as nccl-tests computes it (bytes * 2 (n - 1) / n / time; none with one rank, where only the
// times compare).
#pragma once

#include "tools/bench/bench_common.h"
#include "tools/bench/gpu_bench.h"
#include "tools/bench/local_bench.h"

namespace outrider::bench {

int RunGpuAgainstNccl(const CommonOptions& common, const LocalOptions& local,
                      const GpuOptions& gpu);

}  // namespace outrider::bench
