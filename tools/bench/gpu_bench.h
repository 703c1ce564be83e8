// `outrider-bench local --device cuda`: the GPU handoff measured against baselines taken in the
// same run, on one node, every rank on one GPU: allreduce of device buffers in gpu_mode staging
// and ipc against the same allreduce of host buffers; the staging copies against a plain pinned
// copy (device -> pinned host -> device on one stream); the fence round trip of an 8-byte op.
#pragma once

#include <string>
#include <vector>

#include "tools/bench/bench_common.h"
#include "tools/bench/local_bench.h"

namespace outrider::bench {

struct GpuOptions {
  int gpu = 0;                                          // the ordinal every rank uses
  std::vector<std::string> modes = {"staging", "ipc"};  // gpu_modes to run, in order
};

int RunGpu(const CommonOptions& common, const LocalOptions& local, const GpuOptions& gpu);

}  // namespace outrider::bench
