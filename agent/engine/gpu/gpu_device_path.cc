// The agent's GPU path and a session's gate (see gpu_device_path.h, engine/device_path.h).
#include "agent/engine/gpu/gpu_device_path.h"

#include <string>

#include "agent/engine/gpu/job_gpu.h"
#include "agent/engine/gpu/staging.h"
#include "agent/memory/cuda_memory.h"

namespace outrider::agent {
namespace {

// A session's ops on GPU memory: each waits at the front of the session's queue until the job
// knows its route; the host engine's get their inputs copied to pinned buffers first (Staging),
// and their outputs copied back before the client hears.
class StagingGate final : public DeviceGate {
 public:
  StagingGate(ipc::GpuMode mode, GpuMemory* memory, AgentMetrics* metrics)
      : mode_(mode), staging_(memory, metrics) {}

  Admission Admit(JobDevice* job, const ValidatedOp& op, uint64_t now_ns, uint64_t since_ns,
                  uint64_t timeout_ns) override {
    if (!staging_.has(op.op_id)) {
      // Without a job the sink fails the op; without NCCL the host engine runs it.
      DeviceRoute route = job != nullptr ? job->RouteOf(op, mode_) : DeviceRoute::kHost;
      if (route == DeviceRoute::kNccl) return Admission::Go(&op);
      if (route == DeviceRoute::kNotYet) {
        // Held until every local rank of the job has submitted an op on GPU memory.
        if (timeout_ns == 0 || now_ns < since_ns + timeout_ns) return Admission::Hold();
        return Admission::Refuse(
            DeadlineExceeded("op " + std::to_string(op.op_id) +
                             ": held to learn whether its job's local ranks share a GPU, but " +
                             job->RanksNotYetSeen() + " submitted no op on GPU memory within " +
                             std::to_string(timeout_ns / 1'000'000) + " ms"));
      }
      if (Status st = staging_.Begin(op); !st.ok()) return Admission::Refuse(st);
    }
    Result<const ValidatedOp*> host_op = staging_.Ready(op.op_id);
    if (!host_op.ok()) return Admission::Refuse(host_op.status());
    if (*host_op == nullptr) return Admission::Hold();
    return Admission::Staged(*host_op);
  }

  bool Finish(uint64_t op_id, const Status& status, uint64_t seq, uint64_t agent_ns,
              const OpReport* report) override {
    return staging_.Finish(op_id, status, seq, agent_ns, report);
  }
  std::vector<DeviceCompletion> TakeFinished() override { return staging_.TakeFinished(); }
  bool busy() const override { return staging_.busy(); }

 private:
  ipc::GpuMode mode_;
  Staging staging_;  // ops on GPU regions, while their copies in or out run
};

}  // namespace

GpuDevicePath::GpuDevicePath(Options options)
    : memory_(PinnedPool::Options{options.pinned_max_bytes, options.pinned_idle_ns}),
      metrics_(options.metrics) {}

std::unique_ptr<JobDevice> GpuDevicePath::MakeJobDevice(const std::string& job_id, int world_size,
                                                        int local_size,
                                                        const EngineOptions& engine) {
  return std::make_unique<JobGpu>(job_id, world_size, local_size, engine, &busy_paths_, &memory_);
}

std::unique_ptr<DeviceGate> GpuDevicePath::MakeGate(ipc::GpuMode mode) {
  return std::make_unique<StagingGate>(mode, &memory_, metrics_);
}

int GpuDevicePath::CompletionFd() const { return memory_.completion_fd(); }

void GpuDevicePath::Tick(uint64_t now_ns) {
  if (CudaMemory* cuda = memory_.started()) cuda->TrimIdlePinned(now_ns);
}

std::optional<PinnedUse> GpuDevicePath::pinned() const {
  CudaMemory* cuda = memory_.started();
  if (cuda == nullptr) return std::nullopt;
  return PinnedUse{.in_use = cuda->pinned_bytes() - cuda->idle_pinned_bytes(),
                   .idle = cuda->idle_pinned_bytes()};
}

}  // namespace outrider::agent
