// Ops that name GPU regions (clients in gpu_mode ipc) run on the host engine through the agent's
// pinned buffers (DESIGN §10): the op's GPU inputs are copied to host buffers on the GPU's copy
// stream before the engine sees it, with its spans pointing there; once the engine finished it,
// the outputs are copied back, and only then does the client hear of it (and its stream's done
// fence get written). The loop polls: copies never block it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "agent/engine/op.h"
#include "agent/engine/op_report.h"
#include "agent/memory/cuda_memory.h"
#include "ipc/status.h"

namespace outrider::agent {

// Thread-safety: loop thread only (one per session).
class DeviceOps {
 public:
  DeviceOps() = default;
  DeviceOps(const DeviceOps&) = delete;
  DeviceOps& operator=(const DeviceOps&) = delete;
  // Waits for copies still running (they touch pinned buffers given back here).
  ~DeviceOps();

  // Queues the copies in of `op` (which ValidatedOp::NamesDevice): the reason if it cannot run.
  Status Begin(const ValidatedOp& op);
  // The op with host spans, once its inputs arrived; null before. An error if the copies failed
  // (the op is forgotten: complete it with that).
  Result<const ValidatedOp*> Ready(uint64_t op_id);
  // The engine finished `op_id`. One of these: its outputs are being copied back (true), and
  // TakeFinished hands the completion on once they are there. Else false.
  bool Finish(uint64_t op_id, const Status& status, uint64_t seq, uint64_t agent_ns, const OpReport* report);

  struct Completion {
    uint64_t op_id;
    Status status;
    uint64_t seq, agent_ns;
    std::optional<OpReport> report;
  };
  // Completions whose copies out ran.
  std::vector<Completion> TakeFinished();
  bool busy() const { return !ops_.empty(); }
  size_t size() const { return ops_.size(); }

 private:
  enum class Phase { kCopyIn, kRunning, kCopyOut };
  struct Shadow {
    BufferSpan device;          // the client's GPU memory
    CudaMemory::Pinned host;    // the agent's copy of it
    std::shared_ptr<const void> hold;  // gives `host` back once neither this nor the engine's op uses it
    bool in;                    // copied in before the op
    bool out;                   // copied back after it
  };
  struct Staged {
    Phase phase = Phase::kCopyIn;
    ValidatedOp device_op;  // as submitted: holds the GPU imports until the copies back ran
    ValidatedOp host_op;    // the engine's: spans in `shadows`
    std::vector<Shadow> shadows;
    int device = -1;
    uint64_t ticket = 0;
    Completion completion;
  };

  CudaMemory* cuda_ = nullptr;
  std::map<uint64_t, Staged> ops_;
};

}  // namespace outrider::agent
