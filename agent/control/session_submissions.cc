// A session's submissions: draining its ring into validated ops, and holding those that wait (for
// their stream's fence, to learn their GPU route, or for their copies in) in submission order.
#include <atomic>

#include "agent/control/session.h"
#include "agent/engine/job_table.h"
#include "agent/log.h"
#include "ipc/event_fd.h"

namespace outrider::agent {

bool Session::DrainSubmissions(const OpSink& sink) {
  if (closed_) return false;
  bool any = false;
  ipc::SubmitEntry e;
  RegionLookup lookup = [this](uint32_t id) { return regions_.Find(id); };
  for (;;) {
    ipc::RingResult r = sq_.Pop(&e);
    if (r == ipc::RingResult::kEmpty) break;
    if (r == ipc::RingResult::kCorrupt) {
      Close(ProtocolError("submission ring indices are corrupt"));
      break;
    }
    any = true;
    if (e.op_id <= last_op_id_) {
      Close(ProtocolError("op id " + std::to_string(e.op_id) + " does not increase (last " +
                          std::to_string(last_op_id_) + ")"));
      break;
    }
    last_op_id_ = e.op_id;
    // A refused fenced op signals its fence too: the client's stream must not wait for it.
    bool fenced = (e.flags & ipc::kSubmitFenced) != 0 && e.fence < ipc::kFenceSlots;
    auto refuse = [&](const Status& why) {
      if (fenced) SignalFence(e.fence, e.op_id, why.code());
      Refuse(e.op_id, why);
    };
    CommMember* comm = nullptr;
    if (e.comm != 0) {
      auto it = comms_.find(e.comm);
      if (it == comms_.end()) {
        refuse(InvalidArgument("op " + std::to_string(e.op_id) + " names communicator " +
                               std::to_string(e.comm) + ", which this client does not belong to"));
        if (closed_) break;
        continue;
      }
      comm = it->second.get();
    }
    Member* member = comm != nullptr ? static_cast<Member*>(comm) : world();
    if (member == nullptr) {
      refuse(FailedPrecondition("op " + std::to_string(e.op_id) +
                                ": this client joins its job at the next generation "
                                "(outrider_reconfigure); it is in no job yet"));
      if (closed_) break;
      continue;
    }
    Result<ValidatedOp> op = Internal("not validated");
    Status refused;
    if (e.flags == ipc::kSubmitRefused) {
      // The shim refused it itself: the caller there has the reason, the job must count it.
      fenced = false;
      Code code =
          e.root > 0 && e.root <= kMaxCode ? static_cast<Code>(e.root) : Code::kInvalidArgument;
      refused = Status(code, "refused by the shim of " +
                                 ("rank " + std::to_string(member->identity().rank)) +
                                 " (its caller has the reason)");
    } else {
      op = ValidateEntry(e, member->identity().rank, member->identity().world_size, lookup);
      if (!op.ok()) refused = op.status();
    }
    if (refused.ok() && in_flight_ >= cq_.capacity()) {
      refused = ResourceExhausted(std::to_string(in_flight_) +
                                  " ops of this client are in flight, the most it may have");
    }
    // Refusals behind a waiting op wait too, counted in flight: a client that keeps submitting
    // far past its ring's worth is cut off before the queue grows without bound.
    if (in_flight_ >= 2 * static_cast<size_t>(cq_.capacity())) {
      Close(
          ResourceExhausted("client submitted " + std::to_string(in_flight_) +
                            " ops that are still in flight, twice what its completion ring holds"));
      break;
    }
    ++in_flight_;
    if (comm != nullptr) comm->Submitted();
    if (fenced) fence_of_[e.op_id] = e.fence;
    if (!refused.ok()) {
      Logger("control")->warn("client {} (job {} local rank {}): rejected op {}: {}", id_.client_id,
                              member->identity().job_id, member->identity().local_rank, e.op_id,
                              refused.ToString());
      // Its job still counts it (the rank's next op of the key must not pair with the others'
      // op of this one) and fails the collective on every rank; after the ops that wait before
      // it, so that each takes its sequence number in submission order.
      Job::RefusedOp entry{.key = e.key,
                           .op_id = e.op_id,
                           .kind = static_cast<ipc::OpKind>(e.kind),
                           .dtype = static_cast<ipc::DType>(e.dtype),
                           .count = e.count};
      if (!waiting_.empty()) {
        waiting_.push_back(Waiting{.member = member,
                                   .since_ns = ipc::MonotonicNs(),
                                   .refusal = entry,
                                   .refused = refused});
        continue;
      }
      RefuseToJob(member, entry, refused);
      if (closed_) break;  // it did not drain its completions either
      continue;
    }
    // The job learns where this rank keeps its buffers as soon as the op comes, not when it
    // reaches the front of the queue: an op held there until the job knows (RouteOf) must not
    // keep a later op of another communicator from telling its job.
    if (op->NamesDevice()) {
      if (JobDevice* device = DeviceOf(*member); device != nullptr)
        device->NoteFirstMemory(member->identity().local_rank, op->Device());
    }
    if (fenced || !waiting_.empty() || op->NamesDevice()) {
      waiting_.push_back(Waiting{.member = member,
                                 .op = *op,
                                 .fenced = fenced,
                                 .fence = e.fence,
                                 .since_ns = ipc::MonotonicNs()});
      continue;
    }
    sink(member, *op);
    if (closed_) break;
  }
  return any;
}

bool Session::ReleaseFenced(const OpSink& sink, uint64_t now_ns, uint64_t timeout_ns) {
  bool any = false;
  while (!waiting_.empty() && !closed_) {
    Waiting& w = waiting_.front();
    if (!w.refused.ok()) {  // refused when it came; its job hears it in submission order
      Waiting refused = std::move(w);
      waiting_.pop_front();
      RefuseToJob(refused.member, refused.refusal, refused.refused);
      any = true;
      continue;
    }
    // The front op goes on (to the sink, or failed) unless it still waits.
    Status failed;
    const ValidatedOp* op = &w.op;
    uint64_t ready =
        w.fenced ? std::atomic_ref<uint64_t>(fences_[w.fence].ready).load(std::memory_order_acquire)
                 : 0;
    // Op ids only grow and never wrap (64 bits), so the stream has written this op's `ready` once
    // the slot holds its id or a later one. Compared as they are: a wrapping comparison would let
    // ids of 2^63 and more through unfenced (`ready` starts at 0).
    if (w.fenced && ready < w.op.op_id) {  // not written for this op yet
      if (timeout_ns == 0 || now_ns < w.since_ns + timeout_ns) break;
      failed = DeadlineExceeded("op " + std::to_string(w.op.op_id) + ": its fence (slot " +
                                std::to_string(w.fence) + ") was not ready within " +
                                std::to_string(timeout_ns / 1'000'000) +
                                " ms: the stream that should signal it is stuck or gone");
    } else if (w.op.NamesDevice()) {
      // Its gate holds it (the ops after it wait) until its route is known and, for the host
      // engine, its GPU inputs are in the agent's host buffers.
      DeviceGate::Admission a = AdmitToDevice(*w.member, w.op, now_ns, w.since_ns, timeout_ns);
      if (a.hold) break;
      failed = a.refused;
      if (a.op != nullptr) op = a.op;
      if (a.staged) staged_.insert(w.op.op_id);
    }
    Member* member = w.member;
    ValidatedOp next = *op;
    waiting_.pop_front();
    if (failed.ok()) {
      sink(member, next);
    } else {
      RefuseToJob(member, Job::RefusedOp::Of(next), failed);
    }
    any = true;
  }
  if (!staged_.empty()) {
    for (DeviceCompletion& c : gate_->TakeFinished()) {
      staged_.erase(c.op_id);
      Finished(c.op_id, c.status, c.seq, c.agent_ns, c.report ? &*c.report : nullptr);
      any = true;
    }
  }
  return any;
}

JobDevice* Session::DeviceOf(const Member& member) const {
  Job* job = jobs_ != nullptr ? jobs_->Find(member.identity().job_id) : nullptr;
  return job != nullptr ? job->device() : nullptr;
}

DeviceGate::Admission Session::AdmitToDevice(const Member& member, const ValidatedOp& op,
                                             uint64_t now_ns, uint64_t since_ns,
                                             uint64_t timeout_ns) {
  if (gate_ == nullptr && devices_ != nullptr) gate_ = devices_->MakeGate(id_.gpu_mode);
  if (gate_ == nullptr) {
    return DeviceGate::Admission::Refuse(FailedPrecondition(
        "op " + std::to_string(op.op_id) + " names GPU memory, but this agent has no GPU path"));
  }
  // The job noted the op's memory when it came. Without a job, the sink fails the op.
  return gate_->Admit(DeviceOf(member), op, now_ns, since_ns, timeout_ns);
}

void Session::SignalFence(uint32_t slot, uint64_t op_id, Code code) {
  ipc::FenceSlot& f = fences_[slot];
  std::atomic_ref<int32_t>(f.status).store(static_cast<int32_t>(code), std::memory_order_relaxed);
  std::atomic_ref<uint64_t>(f.done).store(op_id, std::memory_order_release);
}

void Session::RefuseToJob(Member* member, const Job::RefusedOp& op, const Status& why) {
  Job* job = jobs_ != nullptr ? jobs_->Find(member->identity().job_id) : nullptr;
  if (job != nullptr) return job->Refuse(member, op, why);  // completes the op
  member->Complete(op.op_id, why, 0, 0);
}

}  // namespace outrider::agent
