// Whether the agent runs GPU collectives on its own NCCL (the gpu_nccl setting,
// docs/design.md#gpu-path): kernels of two processes on one GPU are time-sliced unless MPS runs, so
// `auto` runs them only under MPS, `force` always, `off` never (the host engine, through pinned
// buffers).
#pragma once

#include <string>

namespace outrider::agent {

enum class GpuNccl { kAuto, kForce, kOff };
const char* GpuNcclName(GpuNccl mode);

// Whether this agent runs NCCL collectives for clients in gpu_mode ipc, and why (decided once, at
// start). The MPS control pipe is looked for in $CUDA_MPS_PIPE_DIRECTORY, else /tmp/nvidia-mps.
struct GpuNcclPolicy {
  GpuNccl mode = GpuNccl::kAuto;
  bool on = false;
  bool mps = false;
  std::string why;  // one sentence: what runs GPU collectives, and the reason
  // Decided once, at the agent's start; the engine learns `on` (EngineOptions::gpu_nccl).
  static GpuNcclPolicy Decide(GpuNccl mode);
};

}  // namespace outrider::agent
