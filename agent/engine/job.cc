// Job membership, op matching, agreement among local ranks, and running instances.
#include "agent/engine/job.h"

#include <algorithm>

#include "agent/engine/agreement.h"
#include "agent/engine/dataplane/host_data_plane.h"
#include "agent/engine/local_collectives.h"
#include "agent/engine/sparse/local.h"
#include "agent/log.h"
#include "agent/net/network.h"
#include "agent/observability.h"
#include "ipc/defaults.h"
#include "ipc/event_fd.h"

namespace outrider::agent {

Job::Job(std::string id, int world_size, int local_size, Network* net, const EngineOptions& engine,
         const std::vector<int32_t>& node_ranks, DevicePath* devices)
    : id_(std::move(id)),
      world_size_(world_size),
      local_size_(local_size),
      ranks_(RankLayout::Of(world_size, local_size, node_ranks)),
      members_(static_cast<size_t>(local_size), nullptr),
      next_seq_(static_cast<size_t>(local_size)),
      net_(net),
      engine_(engine),
      hash_(ipc::Fnv1a(id_.data(), id_.size())),
      devices_(devices) {
  joined_.assign(static_cast<size_t>(local_size), false);
}

JobDevice* Job::device() {
  if (device_ != nullptr || devices_ == nullptr) return device_.get();
  device_ = devices_->MakeJobDevice(id_, world_size_, local_size_, engine_);
  if (group_ != nullptr) {
    device_->Attach(group_.get());
    group_->set_device(device_.get());
  }
  return device_.get();
}

bool Job::every_rank_joined() const {
  return std::all_of(joined_.begin(), joined_.end(), [](bool j) { return j; });
}

Job::~Job() {
  if (!job_label_.empty()) Metrics().ReleaseJobLabel(job_label_);
  // First: the node group's instances may name the device side, and must find nothing to drop.
  if (device_ != nullptr) device_->Abandon();
  rdv_client_.reset();
  if (group_ != nullptr && net_ != nullptr) {
    group_->SayJobLeft(lost_node_, failed_, gave_up_);
    net_->Release(group_->peers(), group_->node_rank());
    net_->scheduler()->ForgetJob(hash_);
  } else if (group_ != nullptr) {
    group_->FailAll(Cancelled("job ended"));
  }
  if (net_ != nullptr && group_ != nullptr && group_->node_rank() == 0) {
    net_->rendezvous()->Withdraw(id_, Cancelled("job '" + id_ + "' ended at the root agent"));
  }
}

bool Job::Pump() {
  if (group_ != nullptr) return group_->Pump();  // pumps the NCCL path too, under its scope
  return device_ != nullptr && device_->Pump();
}

bool Job::busy() const {
  return (group_ != nullptr && (in_rendezvous_ || group_->busy())) ||
         (device_ != nullptr && device_->busy());
}

void Job::Finish(PendingMap::iterator it, const Status& st, std::string_view algo,
                 const std::vector<OpReport>* reports, const OpTrace* trace) {
  const InstanceId& id = it->first;
  Pending& p = it->second;
  uint64_t elapsed = ipc::MonotonicNs() - p.first_ns;
  if (!st.ok() && first_failure_.ok()) first_failure_ = st;
  for (size_t r = 0; r < p.ops.size(); ++r) {
    if (p.op_ids[r] == 0 || members_[r] == nullptr) continue;
    const OpReport* rep = reports != nullptr && r < reports->size() ? &(*reports)[r] : nullptr;
    const Status& own = st.ok() && rep != nullptr ? rep->status : st;
    members_[r]->Complete(p.op_ids[r], own, id.second, elapsed, rep);
    if (p.ops[r]) Account(*p.ops[r], own, elapsed, algo);
  }
  recorder_.Ended(id.first, id.second, st, trace);
  pending_.erase(it);
}

void Job::Lose(const Status& why, Ending how) {
  if (lost_.ok()) {
    Logger("engine")->warn("job '{}' failed for good ({}); its last ops:\n{}", id_, why.ToString(),
                           recorder_.Dump());
  }
  if (lost_.ok()) lost_ = why;
  if (how != Ending::kLeft && failed_.ok()) failed_ = lost_;
  if (how == Ending::kFailed) gave_up_ = true;
  FailAll(lost_);
}

size_t Job::member_count() const {
  size_t n = 0;
  for (Member* m : members_) n += m != nullptr;
  return n;
}

Status Job::AddMember(Member* member) {
  const ClientIdentity& id = member->identity();
  // A generation that failed before all its ranks entered it takes them in still: their first
  // op fails with its loss, and they re-form from it with the others.
  if (!lost_.ok() && generation() == 0) {
    return FailedPrecondition("job '" + id_ + "' has lost a member (" + lost_.message() +
                              "); every rank must leave before the job can start again");
  }
  if (id.world_size != world_size_ || id.local_world_size != local_size_) {
    return InvalidArgument("job '" + id_ + "' has world_size " + std::to_string(world_size_) +
                           " and local_world_size " + std::to_string(local_size_) +
                           ", this client says " + std::to_string(id.world_size) + " and " +
                           std::to_string(id.local_world_size));
  }
  if (RankLayout::Of(id.world_size, id.local_world_size, id.node_ranks) != ranks_) {
    return InvalidArgument("job '" + id_ + "' runs ranks per node " + ranks_.ToString() +
                           ", this client's generation says otherwise");
  }
  // Ranks are numbered node by node: this node's run from its first rank, local rank 0 first.
  if (!ranks_.valid() || ranks_.world() != world_size_ || id.rank < 0 || id.rank >= world_size_ ||
      ranks_.ranks_on(ranks_.node_of(id.rank)) != local_size_ ||
      id.rank - ranks_.first_rank(ranks_.node_of(id.rank)) != id.local_rank) {
    return InvalidArgument("rank " + std::to_string(id.rank) + ", local rank " +
                           std::to_string(id.local_rank) + " of " + std::to_string(local_size_) +
                           " does not fit job '" + id_ + "' of " + std::to_string(world_size_) +
                           " ranks with ranks per node " + ranks_.ToString());
  }
  if (member_count() > 0 && !TokensEqual(id.token, token_)) {
    return PermissionDenied("job token differs from the one the job's other local ranks gave");
  }
  if (member_count() > 0 && id.gpu_mode != gpu_mode_) {
    return FailedPrecondition("job '" + id_ + "' uses gpu_mode " +
                              std::string(ipc::GpuModeName(gpu_mode_)) + ", this client says " +
                              std::string(ipc::GpuModeName(id.gpu_mode)) +
                              " (set OUTRIDER_GPU_MODE alike for every rank)");
  }
  if (member_count() > 0 && (id.job_class != job_class_ || id.job_weight != job_weight_)) {
    return FailedPrecondition(
        "job '" + id_ + "' is of class " + std::string(ipc::JobClassName(job_class_)) +
        " with weight " + std::to_string(job_weight_) + ", this client says " +
        std::string(ipc::JobClassName(id.job_class)) + " with weight " +
        std::to_string(id.job_weight) +
        " (set OUTRIDER_JOB_PRIORITY and OUTRIDER_JOB_WEIGHT alike for every rank)");
  }
  Member*& slot = members_[static_cast<size_t>(id.local_rank)];
  if (slot != nullptr) {
    return FailedPrecondition("local rank " + std::to_string(id.local_rank) + " of job '" + id_ +
                              "' is already connected (pid " +
                              std::to_string(slot->identity().peer.pid) + ")");
  }
  if (world_size_ > local_size_ && group_ == nullptr)
    OUTRIDER_RETURN_IF_ERROR(StartNetwork(member));
  if (member_count() == 0) {
    gpu_mode_ = id.gpu_mode;
    job_class_ = id.job_class;
    job_weight_ = id.job_weight;
    comm_ = id.comm;
    base_id_ = id.job_base.empty() ? id_ : id.job_base;
    generation_ = id.generation;
    // Every job keeps its token, single-node ones too: the agents' port authenticates frames
    // about the job (its next generation, its joiners) against it.
    token_ = id.token;
    AgentMetrics& m = Metrics();
    if (m.enabled()) {
      for (uint32_t g = 0; g < ipc::kNumGpuModes; ++g) {
        m.GpuMode(MetricsLabel(), static_cast<ipc::GpuMode>(g))
            ->Set(g == static_cast<uint32_t>(gpu_mode_) ? 1 : 0);
      }
    }
  }
  slot = member;
  joined_[static_cast<size_t>(id.local_rank)] = true;
  return Status::Ok();
}

void Job::RemoveMember(Member* member, const Status& why, bool orderly) {
  int rank = member->identity().local_rank;
  if (members_[static_cast<size_t>(rank)] != member) return;
  members_[static_cast<size_t>(rank)] = nullptr;
  Ending how = Ending::kLeft;
  if (lost_.ok()) {
    const ClientIdentity& id = member->identity();
    lost_ = PeerLost("rank " + std::to_string(id.rank) + " (local rank " + std::to_string(rank) +
                     ", pid " + std::to_string(id.peer.pid) + ") of job '" + id_ +
                     "' left: " + why.message());
    if (orderly && !first_failure_.ok()) {
      // A rank that says goodbye after an op of the job failed leaves because of that failure:
      // the other ranks hear that cause (code and text), not the goodbye it led to.
      Logger("engine")->info("{}, after {}", lost_.message(), first_failure_.ToString());
      lost_ = first_failure_;
    }
    // A rank that died, or one that said goodbye with collectives unfinished: the other nodes
    // fail the job now, not once this node's last client is gone or a deadline passes, since they
    // may wait for data it will never send. A rank that said goodbye with nothing unfinished
    // finished its part; the others may still be completing theirs (they learn of it when the
    // job ends here, through SayJobLeft).
    bool left_work_undone = !orderly || Unfinished();
    if (group_ != nullptr && left_work_undone) group_->SayJobFailed(lost_);
    how = left_work_undone       ? Ending::kFailed
          : !first_failure_.ok() ? Ending::kLeftAfterFailure
                                 : Ending::kLeft;
  }
  Lose(lost_, how);
}

bool Job::Unfinished() const {
  for (const auto& [inst, p] : pending_) {
    if (p.failed.ok()) return true;  // a failed one failed on every node already
  }
  return group_ != nullptr && group_->unfinished();
}

void Job::Fail(Pending& p, const Status& why, uint64_t seq) {
  uint64_t elapsed = ipc::MonotonicNs() - p.first_ns;
  if (first_failure_.ok() && lost_.ok()) first_failure_ = why;
  for (size_t r = 0; r < p.ops.size(); ++r) {
    if (p.op_ids[r] != 0 && members_[r] != nullptr) {
      members_[r]->Complete(p.op_ids[r], why, seq, 0);
      if (p.ops[r]) {
        Account(*p.ops[r], why, elapsed, group_ != nullptr ? "none" : "local");
        recorder_.Ended(p.ops[r]->key, seq, why);
      }
    }
    p.op_ids[r] = 0;  // completed: later calls must not complete it again
  }
}

void Job::FailAll(const Status& why) {
  // The node group's instances and the device side's point at ops held here: they fail (and finish
  // through Finish) first, so none is left pointing at an op this erases.
  if (group_ != nullptr) group_->FailAll(why);
  if (device_ != nullptr) device_->Fail(why);
  for (auto& [inst, p] : pending_) Fail(p, why, inst.second);
  pending_.clear();
}

void Job::GiveUp(const Status& why) {
  if (!lost_.ok()) return;
  if (group_ != nullptr) group_->SayJobFailed(why);
  Lose(why);
}

std::string Job::RankName(int local_rank) const {
  Member* m = members_[static_cast<size_t>(local_rank)];
  if (group_ == nullptr || m == nullptr) return "local rank " + std::to_string(local_rank);
  return "rank " + std::to_string(m->identity().rank);
}

Status Job::CheckAgreement(const Pending& p, int rank, const ValidatedOp& op, uint64_t key,
                           uint64_t seq) const {
  // Compare against the lowest rank that arrived; name every rank's value in the message.
  for (size_t r = 0; r < p.ops.size(); ++r) {
    if (!p.ops[r]) continue;
    Fingerprint ref = FingerprintOf(*p.ops[r]);
    std::optional<Disagreement> d = Compare(ref, FingerprintOf(op));
    if (!d) return Status::Ok();
    return Mismatch(
        DisagreementMessage(ref, key, seq, id_, *d, RankName(static_cast<int>(r)), RankName(rank)));
  }
  return Status::Ok();
}

void Job::Submit(Member* member, const ValidatedOp& op) {
  // A staged op's session noted its GPU already.
  if (op.NamesDevice() && device() != nullptr)
    device_->NoteFirstMemory(member->identity().local_rank, op.Device());
  Arrive(member, &op, RefusedOp::Of(op), Status::Ok());
}

void Job::Refuse(Member* member, const RefusedOp& op, const Status& why) {
  Arrive(member, nullptr, op, why);
}

void Job::Arrive(Member* member, const ValidatedOp* op, const RefusedOp& entry, const Status& why) {
  int rank = member->identity().local_rank;
  uint64_t key = entry.key;
  // Invariant: every op a member submits, accepted or refused, takes exactly one sequence number
  // of its key, in the order the member submitted them.
  uint64_t seq = next_seq_[static_cast<size_t>(rank)][key]++;
  if (!lost_.ok()) {
    member->Complete(entry.op_id, op != nullptr ? lost_ : why, seq, 0);
    return;
  }
  InstanceId inst{key, seq};
  auto [it, inserted] = pending_.try_emplace(inst);
  Pending& p = it->second;
  if (inserted) {
    p.ops.resize(static_cast<size_t>(local_size_));
    p.op_ids.assign(static_cast<size_t>(local_size_), 0);
    p.first_ns = ipc::MonotonicNs();
    recorder_.Begin(key, seq, entry.kind, entry.dtype, entry.count, local_size_);
    // An iteration ends when a key comes round again.
    if (!iteration_keys_.insert(key).second) {
      iteration_keys_.clear();
      iteration_keys_.insert(key);
      iteration_index_ = 0;
    }
    p.default_priority = ipc::DefaultPriority(iteration_index_++);
    arrival_.push_back(inst);
    MarkActive();
  }
  ++p.arrived;
  recorder_.Arrived(key, seq, p.arrived);
  if (p.failed.ok()) {
    Status bad = op != nullptr ? CheckAgreement(p, rank, *op, key, seq)
                               : Status(why.code(), InstanceName(key, seq) + " in job '" + id_ +
                                                        "' failed: " + RankName(rank) +
                                                        "'s op was refused: " + why.message());
    if (!bad.ok()) {
      Logger("engine")->warn("{}", bad.message());
      p.failed = bad;
      Fail(p, bad, seq);
      // The other nodes would wait for this node's contribution: they fail with the same error.
      if (group_ != nullptr) group_->Abort(key, seq, bad);
    }
  }
  if (!p.failed.ok()) {
    // Ranks that arrive after a mismatch or a refusal fail at once (a refused op with its own
    // reason); the instance is forgotten once every rank has arrived, so nobody waits on it.
    member->Complete(entry.op_id, op != nullptr ? p.failed : why, seq, 0);
    if (p.arrived == local_size_) pending_.erase(it);
    return;
  }
  p.ops[static_cast<size_t>(rank)] = *op;
  p.op_ids[static_cast<size_t>(rank)] = op->op_id;
  if (p.arrived == local_size_) Run(inst, p);
}

void Job::Run(InstanceId inst, Pending& p) {
  Metrics().queue_wait->Observe(static_cast<double>(ipc::MonotonicNs() - p.first_ns) * 1e-9);
  recorder_.Started(inst.first, inst.second, group_ != nullptr ? "peer nodes" : "");
  std::vector<const ValidatedOp*> ops;
  ops.reserve(p.ops.size());
  for (auto& o : p.ops) ops.push_back(&*o);
  // Explicit priorities from the trainers win; without hints, later submissions of an iteration
  // (earlier layers, needed first by the next forward pass) go first.
  int32_t priority = 0;
  bool hinted = false;
  for (const ValidatedOp* o : ops) {
    if (o->priority != 0) priority = hinted ? std::min(priority, o->priority) : o->priority;
    hinted = hinted || o->priority != 0;
  }
  if (!hinted) priority = p.default_priority;
  // GPU memory reaches the job only for the agents' NCCL (sessions stage the rest); the local
  // ranks agreed on it (their fingerprints).
  bool gpu = ops[0]->NamesDevice();
  if (gpu && device() == nullptr) {
    return Finish(pending_.find(inst),
                  FailedPrecondition("job '" + id_ +
                                     "': an op on GPU memory, but this agent has "
                                     "no GPU path"),
                  "nccl", nullptr);
  }
  if (gpu) {
    std::vector<int> ranks;
    for (Member* m : members_) ranks.push_back(m != nullptr ? m->identity().rank : -1);
    ActiveDevice()->SetRanks(ranks);
  }
  if (group_ != nullptr) {
    if (!group_->ready()) {
      waiting_for_network_.push_back(inst);
      return;
    }
    group_->Start(inst.first, inst.second, ops, priority);  // finishes through Finish
    return;
  }
  if (gpu) {
    // Every local rank's op is NcclEligible: its session staged it otherwise, and the ranks agreed
    // on their memory (their fingerprints). NCCL must not launch on alltoallv counts that disagree.
    if (ops[0]->kind == ipc::OpKind::kAlltoallv) {
      if (Status st = CheckLocalAlltoallvCounts(ops); !st.ok())
        return Finish(pending_.find(inst), st, "nccl", nullptr);
    }
    device_->Run(inst.first, inst.second, std::move(ops), priority, [this, inst](const Status& st) {
      auto it = pending_.find(inst);
      if (it != pending_.end()) Finish(it, st, "nccl", nullptr);
    });
    return;
  }
  if (ipc::IsSparse(ops[0]->kind)) {
    Status overall;
    std::vector<OpReport> reports = sparse::ExecuteLocal(ops, local_size_, &overall);
    bool replicated = ops[0]->kind == ipc::OpKind::kSparseAllreduce;
    return Finish(
        pending_.find(inst), overall,
        replicated ? ipc::SparseAlgoName(static_cast<ipc::SparseAlgo>(reports[0].algo)) : "local",
        &reports);
  }
  // Looked up again when done: a data plane that finishes later may find the job failed meanwhile.
  ExecuteLocal(ops, host_plane_, [this, inst](const Status& st) {
    auto it = pending_.find(inst);
    if (it != pending_.end()) Finish(it, st, "local", nullptr);
  });
}

Job::Pending* Job::OldestWaiting() {
  while (!arrival_.empty()) {
    auto it = pending_.find(arrival_.front());
    if (it != pending_.end() && it->second.failed.ok() && it->second.arrived < local_size_)
      return &it->second;
    arrival_.pop_front();  // finished, failed, or every rank is in: it waits for no rank any more
  }
  return nullptr;
}

void Job::ExpireOps(uint64_t now_ns, uint64_t timeout_ns) {
  for (Pending* p = OldestWaiting(); p != nullptr && now_ns - p->first_ns >= timeout_ns;
       p = OldestWaiting()) {
    InstanceId id = arrival_.front();
    std::string missing;
    for (size_t r = 0; r < p->ops.size(); ++r) {
      if (p->ops[r]) continue;
      missing += missing.empty() ? "" : ", ";
      // Multi-node jobs name the job rank too: the error reaches every node.
      if (group_ != nullptr && members_[r] != nullptr) {
        missing += "rank " + std::to_string(members_[r]->identity().rank) + " (local rank " +
                   std::to_string(r) + ")";
      } else {
        missing += "local rank " + std::to_string(r);
      }
    }
    Status st = DeadlineExceeded(InstanceName(id.first, id.second) + " in job '" + id_ +
                                 "' waited " + std::to_string(timeout_ns / 1000000) + " ms for " +
                                 missing + " to submit");
    Logger("engine")->warn("{}", st.message());
    Fail(*p, st, id.second);
    // Keep a failed tombstone so the late ranks fail at once instead of waiting again.
    p->failed = st;
    // The other nodes would wait for this node's contribution: they fail the instance too.
    if (group_ != nullptr) group_->Abort(id.first, id.second, st);
  }
}

uint64_t Job::NextExpiryNs(uint64_t timeout_ns) {
  Pending* p = OldestWaiting();
  return p == nullptr ? UINT64_MAX : p->first_ns + timeout_ns;
}

}  // namespace outrider::agent
