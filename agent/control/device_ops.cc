// Ops on GPU regions through the agent's pinned buffers (see device_ops.h).
#include "agent/control/device_ops.h"

#include <string>

namespace outrider::agent {

DeviceOps::~DeviceOps() {
  if (!ops_.empty() && cuda_ != nullptr) cuda_->Drain();  // before ops_ gives their buffers back
}

Status DeviceOps::Begin(const ValidatedOp& op) {
  if (cuda_ == nullptr) {
    OUTRIDER_ASSIGN_OR_RETURN(cuda_, CudaMemory::Get());
  }
  Staged s;
  s.device_op = op;
  s.host_op = op;
  bool sparse = ipc::IsSparse(op.kind);
  // Each GPU span of the op, whether it is read (in) and written (out). A sparse op's output is
  // read too: it writes only the rows of its result, and the rest must come back unchanged.
  struct Use {
    BufferSpan ValidatedOp::*span;
    bool in, out;
  };
  const Use uses[] = {{&ValidatedOp::send, true, false},
                      {&ValidatedOp::recv, sparse, true},
                      {&ValidatedOp::ids, true, false},
                      {&ValidatedOp::out_ids, sparse, true},
                      {&ValidatedOp::demand, true, false}};
  std::vector<CudaMemory::Copy> copies;
  Status st;
  for (const Use& u : uses) {
    const BufferSpan& span = op.*u.span;
    if (!span.on_device()) continue;
    if (s.device >= 0 && span.device != s.device) {
      st = InvalidArgument("op " + std::to_string(op.op_id) + " names memory on two GPUs");
      break;
    }
    s.device = span.device;
    // The same memory named twice (an in-place op) shares one host copy.
    Shadow* shadow = nullptr;
    for (Shadow& have : s.shadows) {
      if (have.device == span) shadow = &have;
    }
    if (shadow == nullptr) {
      auto pinned = cuda_->TakePinned(span.length);
      if (!pinned.ok()) {
        st = pinned.status();
        break;
      }
      CudaMemory* cuda = cuda_;
      CudaMemory::Pinned p = *pinned;
      std::shared_ptr<const void> hold(p.data, [cuda, p](const void*) { cuda->GivePinned(p); });
      s.shadows.push_back(Shadow{span, p, std::move(hold), false, false});
      shadow = &s.shadows.back();
      // The engine's op holds it too: an op still running when the client goes keeps it.
      s.host_op.Hold(shadow->hold);
    }
    shadow->in |= u.in;
    shadow->out |= u.out;
    s.host_op.*u.span = BufferSpan::Host(shadow->host.data, span.length);
  }
  if (st.ok()) {
    for (const Shadow& sh : s.shadows) {
      if (sh.in) copies.push_back(CudaMemory::Copy{true, sh.device, sh.host.data});
    }
    auto ticket = cuda_->Enqueue(s.device, copies);
    if (ticket.ok()) s.ticket = *ticket;
    st = ticket.status();
  }
  if (!st.ok()) {
    if (!copies.empty()) cuda_->Drain();  // some copies may be queued: they must not land in reused buffers
    return st;
  }
  ops_.emplace(op.op_id, std::move(s));
  return Status::Ok();
}

Result<const ValidatedOp*> DeviceOps::Ready(uint64_t op_id) {
  auto it = ops_.find(op_id);
  if (it == ops_.end()) return nullptr;
  Staged& s = it->second;
  if (s.phase == Phase::kCopyIn) {
    if (!cuda_->Done(s.device, s.ticket)) {
      Status failed = cuda_->Failed(s.device);
      if (failed.ok()) return nullptr;
      ops_.erase(it);
      return failed;
    }
    s.phase = Phase::kRunning;
  }
  return &s.host_op;
}

bool DeviceOps::Finish(uint64_t op_id, const Status& status, uint64_t seq, uint64_t agent_ns, const OpReport* report) {
  auto it = ops_.find(op_id);
  if (it == ops_.end()) return false;
  Staged& s = it->second;
  s.completion = Completion{op_id, status, seq, agent_ns, report != nullptr ? std::optional<OpReport>(*report) : std::nullopt};
  if (s.phase == Phase::kCopyIn) {
    // Failed before it started (the session is closing): the copies in may still run.
    cuda_->Drain();
  }
  std::vector<CudaMemory::Copy> copies;
  if (status.ok()) {
    for (const Shadow& sh : s.shadows) {
      if (sh.out) copies.push_back(CudaMemory::Copy{false, sh.device, sh.host.data});
    }
  }
  auto ticket = cuda_->Enqueue(s.device, copies);
  if (!ticket.ok()) {
    s.completion.status = Status(ticket.status().code(), "op " + std::to_string(op_id) +
                                                             ": copying its result back to the GPU: " +
                                                             ticket.status().message());
    cuda_->Drain();
    s.ticket = 0;
  } else {
    s.ticket = *ticket;
  }
  s.phase = Phase::kCopyOut;
  return true;
}

std::vector<DeviceOps::Completion> DeviceOps::TakeFinished() {
  std::vector<Completion> out;
  for (auto it = ops_.begin(); it != ops_.end();) {
    Staged& s = it->second;
    if (s.phase != Phase::kCopyOut) {
      ++it;
      continue;
    }
    if (!cuda_->Done(s.device, s.ticket)) {
      Status failed = cuda_->Failed(s.device);
      if (failed.ok()) {
        ++it;
        continue;
      }
      s.completion.status = failed;  // its result never reaches the GPU
    }
    out.push_back(std::move(s.completion));
    it = ops_.erase(it);
  }
  return out;
}

}  // namespace outrider::agent
