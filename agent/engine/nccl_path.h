// Dense collectives of a single-node job on its trainers' GPU memory, run by the agent on NCCL
// communicators it owns (DESIGN §10): one communicator rank per local rank, each on the GPU its
// buffers live on (NCCL refuses two ranks on one GPU), created non-blocking once the job's first
// such op arrives, and used by the loop thread only — the one thread of the agent that issues
// NCCL calls, grouped across the job's GPUs, so every GPU sees the same launch order (the job's
// instance order). Collectives run on the agent's stream of each GPU; the instance completes once
// every stream passed it (a pinned ticket word, as for the agent's copies), or fails with the
// communicator's asynchronous error, which aborts the communicators: the job's later ops fail
// with that error.
//
// Whether the agent runs NCCL at all is the agent's gpu_nccl setting (GpuNcclPolicy): kernels of
// two processes on one GPU are time-sliced unless MPS runs, so `auto` runs them only under MPS.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/engine/op.h"
#include "ipc/status.h"

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
  static GpuNcclPolicy Decide(GpuNccl mode);
  // The agent's (set once by the agent at start; off until then).
  static const GpuNcclPolicy& Current();
  static void SetCurrent(GpuNcclPolicy p);
};

// Whether `op` is one the agent runs through NCCL: a dense allreduce, broadcast, allgather or
// reduce-scatter of a dtype NCCL has, on GPU memory only.
bool NcclEligible(const ValidatedOp& op);

// Thread-safety: loop thread only.
class NcclPath {
 public:
  NcclPath(std::string job_id, uint64_t init_timeout_ns);
  ~NcclPath();  // aborts the communicators (the job is gone: nothing waits for them)
  NcclPath(const NcclPath&) = delete;
  NcclPath& operator=(const NcclPath&) = delete;

  using Done = std::function<void(const Status&)>;
  // Queues one instance: `ops` by local rank (all NcclEligible, agreed). `done` runs from Pump.
  void Run(std::vector<const ValidatedOp*> ops, Done done);
  // Creates communicators, launches, completes: true if it did any of it.
  bool Pump();
  bool busy() const { return !queue_.empty() || !flight_.empty(); }
  // Some job's NCCL path has work queued or in flight (the loop then polls every millisecond:
  // GPU streams finish without waking it).
  static bool AnyBusy() { return busy_paths_ > 0; }
  nlohmann::json StatusJson() const;

 private:
  enum class State { kNone, kInit, kReady, kFailed };
  struct Item {
    std::vector<const ValidatedOp*> ops;
    Done done;
  };
  struct InFlight {
    std::vector<std::pair<int, uint64_t>> tickets;  // (device, ticket)
    Done done;
  };
  Status StartInit(const std::vector<const ValidatedOp*>& ops);
  Status Launch(const Item& item, InFlight* flight);
  // The communicators failed (`why`): abort them, fail everything queued and in flight.
  void FailAll(const Status& why);
  // The first communicator's asynchronous error; `in_progress` (if given): some is still starting.
  Status AsyncError(bool* in_progress = nullptr) const;
  bool PumpOnce();

  std::string job_id_;
  uint64_t init_timeout_ns_;
  State state_ = State::kNone;
  uint64_t init_deadline_ns_ = 0;
  std::vector<int> devices_;  // by local rank: the agent's ordinal of its GPU
  std::vector<void*> comms_;  // by local rank: ncclComm_t
  std::deque<Item> queue_;
  std::deque<InFlight> flight_;
  Status failed_;
  uint64_t launched_ = 0, completed_ = 0;
  bool counted_busy_ = false;
  void CountBusy();
  static inline int busy_paths_ = 0;
};

}  // namespace outrider::agent
