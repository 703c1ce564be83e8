// What the GPU benchmarks (gpu_bench.cc, gpu_nccl_bench.cc) share: CUDA calls that end the rank
// on failure, iterations by size, the list of sizes, and how a run ends.
#pragma once

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <vector>

#include "loaders/cuda/driver.h"
#include "tools/bench/bench_common.h"
#include "tools/bench/local_bench.h"

#if OUTRIDER_HAVE_CUDA
namespace outrider::bench {

// Ends the calling rank process, saying which call failed and why, unless `rc` is success.
void Cu(const cuda::Driver& d, CUresult rc, const char* what);
// In a rank process: the CUDA driver, GPU `gpu`'s primary context current; ends the rank, saying
// why, if either fails.
const cuda::Driver& RankCuda(int gpu);
// Timed iterations for `bytes`: `requested` (at most 1000), or by size (5..200) when 0.
int GpuIters(uint64_t bytes, int requested);
// --min-bytes to --max-bytes by --factor, multiples of 4 bytes, at most `max_sizes` of them.
std::vector<uint64_t> GpuSizes(const LocalOptions& o, size_t max_sizes);
// Writes the JSON rows where asked; 1 if that fails or `failures` result checks failed, else 0.
int FinishGpuRun(const CommonOptions& common, const nlohmann::json& rows, int failures);

}  // namespace outrider::bench
#endif
