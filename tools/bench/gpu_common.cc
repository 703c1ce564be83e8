// The GPU benchmarks' shared helpers (see gpu_common.h).
#include "tools/bench/gpu_common.h"

#include <algorithm>
#include <cstdlib>

namespace outrider::bench {

#if OUTRIDER_HAVE_CUDA

void Cu(const cuda::Driver& d, CUresult rc, const char* what) {
  if (rc == CUDA_SUCCESS) return;
  std::fprintf(stderr, "outrider-bench: %s\n", cuda::Check(d, rc, what).ToString().c_str());
  std::_Exit(1);
}

const cuda::Driver& RankCuda(int gpu) {
  auto loaded = cuda::Load();
  if (!loaded.ok()) {
    std::fprintf(stderr, "outrider-bench: %s\n", loaded.status().ToString().c_str());
    std::_Exit(1);
  }
  const cuda::Driver& d = **loaded;
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  Cu(d, d.cuDeviceGet(&dev, gpu), "cuDeviceGet");
  Cu(d, d.cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  Cu(d, d.cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  return d;
}

int GpuIters(uint64_t bytes, int requested) {
  if (requested > 0) return std::min(requested, 1000);
  return static_cast<int>(
      std::clamp<uint64_t>((uint64_t{1} << 30) / std::max<uint64_t>(bytes, 1), 5, 200));
}

std::vector<uint64_t> GpuSizes(const LocalOptions& o, size_t max_sizes) {
  std::vector<uint64_t> sizes;
  for (uint64_t s = std::max<uint64_t>(o.min_bytes, 4);
       s <= o.max_bytes && sizes.size() < max_sizes;
       s *= static_cast<uint64_t>(std::max(o.factor, 2))) {
    sizes.push_back(s / 4 * 4);
  }
  return sizes;
}

int FinishGpuRun(const CommonOptions& common, const nlohmann::json& rows, int failures) {
  if (!WriteJsonOrSay(common, rows)) return 1;
  if (failures) {
    std::fprintf(stderr, "outrider-bench: %d result check(s) failed\n", failures);
    return 1;
  }
  return 0;
}

#endif

}  // namespace outrider::bench
