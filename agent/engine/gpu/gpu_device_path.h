// The agent's GPU path (engine/device_path.h's DevicePath), built once in agent.cc: the process's
// GPU memory (pinned buffers and their bounds, the completion fd), the count of NCCL paths with
// work, and the makers of each job's JobGpu and each session's gate.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "agent/engine/device_path.h"
#include "agent/memory/gpu_memory.h"
#include "agent/observability.h"

namespace outrider::agent {

// Thread-safety: loop thread only.
class GpuDevicePath final : public DevicePath {
 public:
  struct Options {
    uint64_t pinned_max_bytes = 0;    // the agent's gpu_pinned_max_bytes (0: the pool's default)
    uint64_t pinned_idle_ns = 0;      // and gpu_pinned_idle_ms
    AgentMetrics* metrics = nullptr;  // counts staged sparse rows (not owned; may be null)
  };
  // Before any GPU memory is used: the pinned buffers' bounds hold from the first.
  explicit GpuDevicePath(Options options);

  std::unique_ptr<JobDevice> MakeJobDevice(const std::string& job_id, int world_size,
                                           int local_size, const EngineOptions& engine) override;
  std::unique_ptr<DeviceGate> MakeGate(ipc::GpuMode mode) override;
  int CompletionFd() const override;
  bool busy() const override { return busy_paths_ > 0; }
  void Tick(uint64_t now_ns) override;
  std::optional<PinnedUse> pinned() const override;
  GpuMemory* memory() override { return &memory_; }

 private:
  GpuMemory memory_;  // the agent's CUDA, opened on first use
  AgentMetrics* metrics_;
  int busy_paths_ = 0;  // NCCL paths with work queued or in flight
};

}  // namespace outrider::agent
