// The gpu_nccl decision (see nccl_policy.h).
#include "agent/engine/gpu/nccl_policy.h"

#include <sys/stat.h>

#include <cstdlib>
#include <utility>

#include "loaders/cuda/driver.h"
#include "loaders/nccl/library.h"

namespace outrider::agent {

const char* GpuNcclName(GpuNccl mode) {
  switch (mode) {
    case GpuNccl::kForce:
      return "force";
    case GpuNccl::kOff:
      return "off";
    default:
      return "auto";
  }
}

namespace {

bool MpsRunning() {
  const char* dir = std::getenv("CUDA_MPS_PIPE_DIRECTORY");
  std::string control =
      std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp/nvidia-mps") + "/control";
  struct stat st {};
  return ::stat(control.c_str(), &st) == 0;
}

}  // namespace

GpuNcclPolicy GpuNcclPolicy::Decide(GpuNccl mode) {
  GpuNcclPolicy p;
  p.mode = mode;
  p.mps = MpsRunning();
  const char* host =
      "GPU collectives of gpu_mode ipc clients run on the host engine through the agent's pinned "
      "buffers";
  if (mode == GpuNccl::kOff) {
    p.why = std::string(host) + " (gpu_nccl = off)";
    return p;
  }
  if (mode == GpuNccl::kAuto && !p.mps) {
    p.why = std::string(host) +
            ": MPS is not running, so the agent's NCCL kernels would be time-sliced with the "
            "trainers' kernels "
            "(start the MPS control daemon, or set gpu_nccl = force to run them anyway)";
    return p;
  }
  auto nccl = nccl::Load();
  if (!nccl.ok()) {
    p.why = std::string(host) + ": " + nccl.status().message();
    return p;
  }
  auto cuda = cuda::Load();
  if (!cuda.ok()) {
    p.why = std::string(host) + ": " + cuda.status().message();
    return p;
  }
  p.on = true;
#if OUTRIDER_HAVE_NCCL
  std::string version = nccl::VersionString((*nccl)->version);
#else
  std::string version = "?";  // unreachable: Load() fails without NCCL
#endif
  p.why = "dense GPU collectives of gpu_mode ipc jobs run on the agent's NCCL " + version +
          " communicators (" +
          (mode == GpuNccl::kForce
               ? std::string("gpu_nccl = force") +
                     (p.mps ? ", MPS running"
                            : ", without MPS: their kernels are time-sliced with the trainers'")
               : std::string("MPS running")) +
          ")";
  return p;
}

}  // namespace outrider::agent
