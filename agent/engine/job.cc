// Job membership, op matching, agreement checks and execution.
#include "agent/engine/job.h"

#include <cstdio>

#include "agent/control/session.h"
#include "agent/engine/local_collectives.h"
#include "agent/log.h"
#include "ipc/event_fd.h"

namespace outrider::agent {
namespace {

std::string KeyText(uint64_t key, uint64_t seq) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "key 0x%016llx seq %llu", static_cast<unsigned long long>(key),
                static_cast<unsigned long long>(seq));
  return buf;
}

}  // namespace

Job::Job(std::string id, int world_size, int local_size)
    : id_(std::move(id)),
      world_size_(world_size),
      local_size_(local_size),
      members_(static_cast<size_t>(local_size), nullptr),
      next_seq_(static_cast<size_t>(local_size)) {}

size_t Job::member_count() const {
  size_t n = 0;
  for (Session* s : members_) n += s != nullptr;
  return n;
}

Status Job::AddMember(Session* session) {
  const ClientIdentity& id = session->identity();
  if (!lost_.ok()) {
    return FailedPrecondition("job '" + id_ + "' has lost a member (" + lost_.message() +
                              "); every rank must leave before the job can start again");
  }
  if (id.world_size != world_size_ || id.local_world_size != local_size_) {
    return InvalidArgument("job '" + id_ + "' has world_size " + std::to_string(world_size_) +
                           " and local_world_size " + std::to_string(local_size_) +
                           ", this client says " + std::to_string(id.world_size) + " and " +
                           std::to_string(id.local_world_size));
  }
  Session*& slot = members_[static_cast<size_t>(id.local_rank)];
  if (slot != nullptr) {
    return FailedPrecondition("local rank " + std::to_string(id.local_rank) + " of job '" + id_ +
                              "' is already connected (pid " +
                              std::to_string(slot->identity().peer.pid) + ")");
  }
  slot = session;
  return Status::Ok();
}

void Job::RemoveMember(Session* session, const Status& why) {
  int rank = session->identity().local_rank;
  if (members_[static_cast<size_t>(rank)] != session) return;
  members_[static_cast<size_t>(rank)] = nullptr;
  if (lost_.ok()) {
    lost_ = PeerLost("local rank " + std::to_string(rank) + " (pid " +
                     std::to_string(session->identity().peer.pid) + ") of job '" + id_ +
                     "' left: " + why.message());
  }
  FailAll(lost_);
}

void Job::Fail(Pending& p, const Status& why, uint64_t seq) {
  for (size_t r = 0; r < p.ops.size(); ++r) {
    if (p.op_ids[r] != 0 && members_[r] != nullptr) members_[r]->Complete(p.op_ids[r], why, seq, 0);
    p.op_ids[r] = 0;  // completed: later calls must not complete it again
  }
}

void Job::FailAll(const Status& why) {
  for (auto& [inst, p] : pending_) Fail(p, why, inst.second);
  pending_.clear();
}

Status Job::CheckAgreement(const Pending& p, int rank, const ValidatedOp& op, uint64_t key,
                           uint64_t seq) const {
  // Compare against the lowest rank that arrived; name every rank's value in the message.
  const ValidatedOp* ref = nullptr;
  int ref_rank = -1;
  for (size_t r = 0; r < p.ops.size() && ref == nullptr; ++r) {
    if (p.ops[r]) {
      ref = &*p.ops[r];
      ref_rank = static_cast<int>(r);
    }
  }
  if (ref == nullptr) return Status::Ok();
  auto differ = [&](const char* field, const std::string& a, const std::string& b) {
    return Mismatch(std::string(ipc::OpKindName(ref->kind)) + " " + KeyText(key, seq) +
                    " in job '" + id_ + "': ranks disagree on " + field + ": local rank " +
                    std::to_string(ref_rank) + " has " + a + ", local rank " +
                    std::to_string(rank) + " has " + b);
  };
  if (ref->kind != op.kind) {
    return differ("op kind", std::string(ipc::OpKindName(ref->kind)),
                  std::string(ipc::OpKindName(op.kind)));
  }
  if (op.kind == ipc::OpKind::kBarrier) return Status::Ok();
  if (ref->dtype != op.dtype) {
    return differ("dtype", std::string(ipc::DTypeName(ref->dtype)), std::string(ipc::DTypeName(op.dtype)));
  }
  if (ref->count != op.count) return differ("count", std::to_string(ref->count), std::to_string(op.count));
  bool reduces = op.kind == ipc::OpKind::kAllreduce || op.kind == ipc::OpKind::kReduceScatter;
  if (reduces && ref->reduce_op != op.reduce_op) {
    return differ("reduce op", std::string(ipc::ReduceOpName(ref->reduce_op)),
                  std::string(ipc::ReduceOpName(op.reduce_op)));
  }
  if (op.kind == ipc::OpKind::kBroadcast && ref->root != op.root) {
    return differ("root", std::to_string(ref->root), std::to_string(op.root));
  }
  return Status::Ok();
}

void Job::Submit(Session* session, const ValidatedOp& op) {
  int rank = session->identity().local_rank;
  uint64_t seq = next_seq_[static_cast<size_t>(rank)][op.key]++;
  if (!lost_.ok()) {
    session->Complete(op.op_id, lost_, seq, 0);
    return;
  }
  InstanceId inst{op.key, seq};
  auto [it, inserted] = pending_.try_emplace(inst);
  Pending& p = it->second;
  if (inserted) {
    p.ops.resize(static_cast<size_t>(local_size_));
    p.op_ids.assign(static_cast<size_t>(local_size_), 0);
    p.first_ns = ipc::MonotonicNs();
  }
  ++p.arrived;
  if (p.failed.ok()) {
    Status agree = CheckAgreement(p, rank, op, op.key, seq);
    if (!agree.ok()) {
      Logger("engine")->warn("{}", agree.message());
      p.failed = agree;
      Fail(p, agree, seq);
    }
  }
  if (!p.failed.ok()) {
    // Ranks that arrive after a mismatch fail at once; the instance is forgotten once every
    // rank has arrived, so nobody waits on it.
    session->Complete(op.op_id, p.failed, seq, 0);
    if (p.arrived == local_size_) pending_.erase(it);
    return;
  }
  p.ops[static_cast<size_t>(rank)] = op;
  p.op_ids[static_cast<size_t>(rank)] = op.op_id;
  if (p.arrived == local_size_) Run(inst, p);
}

void Job::Run(InstanceId inst, Pending& p) {
  std::vector<const ValidatedOp*> ops;
  ops.reserve(p.ops.size());
  for (auto& o : p.ops) ops.push_back(&*o);
  engine::ExecuteLocal(ops);
  uint64_t elapsed = ipc::MonotonicNs() - p.first_ns;
  for (size_t r = 0; r < p.ops.size(); ++r) members_[r]->Complete(p.op_ids[r], Status::Ok(), inst.second, elapsed);
  pending_.erase(inst);
}

void Job::ExpireOps(uint64_t now_ns, uint64_t timeout_ns) {
  for (auto it = pending_.begin(); it != pending_.end();) {
    Pending& p = it->second;
    if (!p.failed.ok() || now_ns - p.first_ns < timeout_ns) {
      ++it;
      continue;
    }
    std::string missing;
    for (size_t r = 0; r < p.ops.size(); ++r) {
      if (!p.ops[r]) missing += (missing.empty() ? "" : ", ") + std::to_string(r);
    }
    Status st = DeadlineExceeded(KeyText(it->first.first, it->first.second) + " in job '" + id_ +
                                 "' waited " + std::to_string(timeout_ns / 1000000) +
                                 " ms for local rank(s) " + missing + " to submit");
    Logger("engine")->warn("{}", st.message());
    Fail(p, st, it->first.second);
    // Keep a failed tombstone so the late ranks fail at once instead of waiting again.
    p.failed = st;
    ++it;
  }
}

uint64_t Job::NextExpiryNs(uint64_t timeout_ns) const {
  uint64_t next = UINT64_MAX;
  for (const auto& [inst, p] : pending_) {
    if (p.failed.ok()) next = std::min(next, p.first_ns + timeout_ns);
  }
  return next;
}

Status JobTable::Join(Session* session) {
  const ClientIdentity& id = session->identity();
  auto it = jobs_.find(id.job_id);
  if (it == jobs_.end()) {
    it = jobs_.emplace(id.job_id, std::make_unique<Job>(id.job_id, id.world_size, id.local_world_size)).first;
  }
  Status st = it->second->AddMember(session);
  if (!st.ok() && it->second->member_count() == 0) jobs_.erase(it);
  return st;
}

void JobTable::Leave(Session* session, const Status& why) {
  auto it = jobs_.find(session->identity().job_id);
  if (it == jobs_.end()) return;
  it->second->RemoveMember(session, why);
  if (it->second->member_count() == 0) jobs_.erase(it);
}

Job* JobTable::Find(const std::string& id) {
  auto it = jobs_.find(id);
  return it == jobs_.end() ? nullptr : it->second.get();
}

void JobTable::FailAll(const Status& why) {
  for (auto& [id, job] : jobs_) job->FailAll(why);
}

void JobTable::ExpireOps(uint64_t now_ns, uint64_t timeout_ns) {
  for (auto& [id, job] : jobs_) job->ExpireOps(now_ns, timeout_ns);
}

uint64_t JobTable::NextExpiryNs(uint64_t timeout_ns) const {
  uint64_t next = UINT64_MAX;
  for (const auto& [id, job] : jobs_) next = std::min(next, job->NextExpiryNs(timeout_ns));
  return next;
}

}  // namespace outrider::agent
