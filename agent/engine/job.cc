// Job membership, op matching, agreement among local ranks, running instances, the job across
// nodes, and what it reports (see job.h).
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
         const std::vector<int32_t>& node_ranks, DevicePath* devices, AgentMetrics* metrics)
    : id_(std::move(id)),
      world_size_(world_size),
      local_size_(local_size),
      ranks_(RankLayout::Of(world_size, local_size, node_ranks)),
      members_(static_cast<size_t>(local_size), nullptr),
      next_seq_(static_cast<size_t>(local_size)),
      net_(net),
      engine_(engine),
      hash_(ipc::Fnv1a(id_.data(), id_.size())),
      devices_(devices),
      metrics_(metrics) {
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
  if (!job_label_.empty()) metrics_->ReleaseJobLabel(job_label_);
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
  if (back_address_ && group_ != nullptr && net_ != nullptr) {
    TakeBack();
    return true;
  }
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
  if (hand_over_) MaybeFinishHandOver();
}

size_t Job::HandOver() {
  if (world_size_ != local_size_) {
    // Across nodes: only a job its trainers can come back to as themselves (generation 0: a
    // hello names no other), on host memory (the NCCL communicators would need every node's
    // agent), with no other node handing over.
    bool old_shim = std::any_of(members_.begin(), members_.end(), [](const Member* m) {
      return m != nullptr && !m->ComesBackHandedOver();
    });
    if (hand_over_ || group_ == nullptr || !group_->ready() || !lost_.ok() || generation_ != 0 ||
        (device_ != nullptr && device_->started()) || engine_.hand_over_wait_ms == 0 || old_shim) {
      Logger("engine")->warn(
          "job '{}' spans nodes and is not handed over ({}): it fails when this agent stops", id_,
          hand_over_                              ? "another node's agent hands over"
          : group_ == nullptr || !group_->ready() ? "its nodes are not connected yet"
          : !lost_.ok()                           ? "it failed"
          : generation_ != 0                      ? "it re-formed"
          : engine_.hand_over_wait_ms == 0        ? "hand_over_wait_ms is 0"
          : old_shim                              ? "a trainer's shim speaks protocol 12"
                                                  : "it ran ops on the agents' NCCL");
      return 0;
    }
    BeginHandOver(group_->node_rank());
    return 0;
  }
  if (handing_over_) return 0;
  handing_over_ = true;
  for (Member* m : members_) {
    if (m != nullptr) m->HandedOver();
  }
  // Not the running ones, nor those failed and kept as such.
  return GiveBack([&](const InstanceId&, const Pending& p) {
    return p.arrived < local_size_ && p.failed.ok();
  });
}

size_t Job::GiveBack(const std::function<bool(const InstanceId&, const Pending&)>& which) {
  size_t moved = 0;
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (!which(it->first, it->second)) {
      ++it;
      continue;
    }
    Pending& p = it->second;
    for (size_t r = 0; r < p.ops.size(); ++r) {
      if (p.op_ids[r] != 0 && members_[r] != nullptr) {
        members_[r]->Moved(p.op_ids[r], it->first.second);
        ++moved;
      }
    }
    recorder_.Ended(it->first.first, it->first.second, Unavailable("handed over"), nullptr);
    it = pending_.erase(it);
  }
  moved_ops_ += moved;
  return moved;
}

size_t Job::HandOverRunning() {
  if (world_size_ != local_size_) {
    MaybeFinishHandOver();
    if (hand_over_ && hand_over_->leaving_here() &&
        hand_over_->agreement_late(ipc::MonotonicNs())) {
      // Some node did not say where it stands: not handed over; the job fails when the agent
      // stops, as without a hand-over.
      Logger("engine")->warn(
          "job '{}': not every node said where it stands within {} ms; it is not handed over", id_,
          JobHandOver::kAgreeWithinNs / 1'000'000);
      hand_over_.reset();
      abandoned_hand_over_ = true;
      RunHeld();
      return 0;
    }
    if (abandoned_hand_over_) return 0;
    // Its last word to the other nodes must leave before the agent does.
    // and every other node must have taken it, or it would take this agent's exit for a loss.
    bool waits = hand_over_ && hand_over_->leaving_here() && lost_.ok() &&
                 (!handed_over_here_ || group_->hand_over_sending() || !hand_over_->left_seen());
    return waits ? 1 : 0;
  }
  return static_cast<size_t>(std::count_if(pending_.begin(), pending_.end(), [&](const auto& e) {
    return e.second.arrived == local_size_ && e.second.failed.ok();
  }));
}

void Job::Lose(const Status& why, Ending how) {
  if (lost_.ok()) {
    Logger("engine")->warn("job '{}' failed for good ({}); its last ops:\n{}", id_, why.ToString(),
                           recorder_.Dump());
  }
  if (lost_.ok()) lost_ = why;
  if (how != Ending::kLeft && failed_.ok()) failed_ = lost_;
  if (how == Ending::kFailed) gave_up_ = true;
  // Ranks that left in order sent their messages: the others may still take them.
  FailAll(lost_, /*points=*/!failed_.ok());
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
    if (AgentMetrics* m = Counting(metrics_)) {
      for (uint32_t g = 0; g < ipc::kNumGpuModes; ++g) {
        m->GpuMode(MetricsLabel(), static_cast<ipc::GpuMode>(g))
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
  // Its messages are all sent (or fail): receives waiting for one more from it never get it.
  if (points_ != nullptr) {
    int r = member->identity().rank;
    points_->RanksLeft(
        r, r + 1,
        PeerLost("rank " + std::to_string(r) + " of job '" + id_ + "' left: " + why.message()));
  }
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

void Job::FailAll(const Status& why, bool points) {
  // The node group's instances and the device side's point at ops held here: they fail (and finish
  // through Finish) first, so none is left pointing at an op this erases.
  if (group_ != nullptr) group_->FailAll(why);
  if (device_ != nullptr) device_->Fail(why);
  if (points_ != nullptr && points) points_->FailAll(why);
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
  if (ipc::IsPointToPoint(op.kind)) {
    // After ranks left in order, the others may still exchange messages (and take theirs).
    if (!failed_.ok()) return member->Complete(op.op_id, failed_, 0, 0);
    if (handing_over_) {
      ++moved_ops_;
      return member->Moved(op.op_id, 0);
    }
    return Points().Submit(member->identity().local_rank, op);
  }
  // A staged op's session noted its GPU already.
  if (op.NamesDevice() && device() != nullptr)
    device_->NoteFirstMemory(member->identity().local_rank, op.Device());
  Arrive(member, &op, RefusedOp::Of(op), Status::Ok());
}

void Job::Refuse(Member* member, const RefusedOp& op, const Status& why) {
  // A send or receive takes no place in a key's sequence: only its own caller waits for it.
  if (ipc::IsPointToPoint(op.kind)) return member->Complete(op.op_id, why, 0, 0);
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
  if (handing_over_ && op != nullptr) {
    member->Moved(entry.op_id, seq);
    ++moved_ops_;
    return;
  }
  // Past the stop point of this node's hand-over: it runs at the next agent.
  if (op != nullptr && hand_over_ && hand_over_->leaving_here() && hand_over_->PastStop(key, seq)) {
    member->Moved(entry.op_id, seq);
    ++moved_ops_;
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
    uint64_t bytes = op != nullptr ? std::max(op->send.length, op->recv.length) : 0;
    p.default_priority = ipc::DefaultPriority(iteration_index_++, bytes);
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
  if (group_ != nullptr && hand_over_ && !hand_over_->MayStart(inst.first, inst.second)) {
    held_.push_back(inst);  // RunHeld starts it
    return;
  }
  if (AgentMetrics* m = Counting(metrics_))
    m->queue_wait->Observe(static_cast<double>(ipc::MonotonicNs() - p.first_ns) * 1e-9);
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
    uint64_t& started = started_next_[inst.first];
    started = std::max(started, inst.second + 1);
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
  if (hand_over_ && lost_.ok() && hand_over_->away_until_ns() != 0 &&
      now_ns >= hand_over_->away_until_ns()) {
    uint64_t ms = HandOverWaitNs() / 1'000'000;
    if (hand_over_->resuming()) {
      Lose(PeerLost("job '" + id_ +
                    "': the other nodes did not take this node's ranks back within " +
                    std::to_string(ms) + " ms after its previous agent handed them over"));
    } else {
      int node = hand_over_->leaving();
      Lose(PeerLost(group_->DescribeNode(node) + " of job '" + id_ +
                    "' handed over, and no next agent took its ranks back within " +
                    std::to_string(ms) + " ms (is the agent on that node running?)"));
    }
    return;
  }
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
  uint64_t next = p == nullptr ? UINT64_MAX : p->first_ns + timeout_ns;
  if (hand_over_ && hand_over_->away_until_ns() != 0)
    next = std::min(next, hand_over_->away_until_ns());
  return next;
}

// ---- The job across nodes: its node group and rendezvous, the other nodes' messages ----

Status Job::StartNetwork(const Member* first) {
  const ClientIdentity& id = first->identity();
  int num_nodes = ranks_.nodes();
  int node = ranks_.node_of(id.rank);
  if (net_ == nullptr) {
    return FailedPrecondition("job '" + id_ + "' spans " + std::to_string(num_nodes) +
                              " nodes, but this agent runs without an agent port (--port 0)");
  }
  // The job's node 0 hosts the rendezvous: a job's own, and also each of its communicators'. A
  // communicator whose node 0 is another node joins there like its other nodes.
  bool host = node == 0 && (!id.comm || id.job_node == 0);
  if (!host && id.root_addr.empty() && !resume_) {
    return FailedPrecondition(
        "job '" + id_ + "' spans " + std::to_string(num_nodes) +
        " nodes: set OUTRIDER_ROOT_ADDR (host:port of node 0's agent) or MASTER_ADDR");
  }
  token_ = id.token;
  if (token_.empty())
    Logger("engine")->warn(
        "job '{}' has no OUTRIDER_JOB_TOKEN: any agent that knows its id may join", id_);
  group_ = std::make_unique<NodeGroup>(
      Topology{id_, num_nodes, node, ranks_, id.job_base}, hash_, net_->self_hash(),
      net_->transport(), &host_plane_,
      [this](uint64_t key, uint64_t seq, const Status& st, std::string_view algo,
             const std::vector<OpReport>* reports, const OpTrace& trace) {
        auto it = pending_.find({key, seq});
        if (it != pending_.end())
          Finish(it, st, algo, reports, &trace);  // else: already failed here
      },
      engine_);
  // Every communicator of the job is the job to the scheduler: one urgency across them.
  const std::string& job = id.job_base.empty() ? id_ : id.job_base;
  group_->set_scheduler(net_->scheduler(), id.job_class, id.job_weight,
                        ipc::Fnv1a(job.data(), job.size()));
  group_->set_metrics(Counting(metrics_));
  if (device_ != nullptr) {
    device_->Attach(group_.get());
    group_->set_device(device_.get());
  }
  group_->set_device_message([this](const PeerHeader& h, const uint8_t* data, size_t len) {
    OnDeviceMessage(h, data, len);
  });
  group_->set_hand_over_message([this](const PeerHeader& h, const uint8_t* data, size_t len) {
    OnHandOverMessage(h, data, len);
  });
  group_->set_point_message([this](const PeerHeader& h, const uint8_t* data, size_t len) {
    OnPointMessage(h, data, len);
  });
  // Another node's ranks left in order: everything they sent has arrived.
  group_->set_node_left([this](int node, const Status& why) {
    if (points_ != nullptr)
      points_->RanksLeft(ranks_.first_rank(node), ranks_.first_rank(node + 1), why);
  });
  // Another node's rank died (or left): nothing that node still owes will come.
  group_->set_failed([this](int node, const Status& why) { Lose(why); });
  group_->set_partial([this](uint64_t key, uint64_t seq, const std::vector<OpReport>& reports) {
    auto it = pending_.find({key, seq});
    if (it == pending_.end()) return;
    Pending& p = it->second;
    uint64_t elapsed = ipc::MonotonicNs() - p.first_ns;
    for (size_t r = 0; r < p.op_ids.size() && r < reports.size(); ++r) {
      if (p.op_ids[r] == 0 || members_[r] == nullptr || !reports[r].status.ok()) continue;
      members_[r]->Partial(p.op_ids[r], seq, elapsed, reports[r]);
    }
  });
  std::vector<int32_t> counts = ranks_.counts();
  uint32_t layout =
      ranks_.even()
          ? 0
          : static_cast<uint32_t>(ipc::Fnv1a(counts.data(), counts.size() * sizeof(int32_t)));
  if (resume_) return ResumeNetwork();
  JobShape shape{id_, token_, num_nodes, local_size_, layout};
  auto done = [this](Result<NodeTable> table) { OnRendezvous(std::move(table)); };
  in_rendezvous_ = true;
  MarkActive();
  if (host) {
    net_->rendezvous()->Offer(shape, net_->transport()->address(), done);
  } else {
    rdv_client_ = std::make_unique<RendezvousClient>(
        net_->loop(), shape, node, id.root_addr, net_->transport()->address(),
        net_->options().rendezvous_timeout_ms, done, net_->rendezvous()->port());
  }
  Logger("engine")->info("job '{}': node {} of {}, rendezvous {}", id_, node, num_nodes,
                         host ? "hosted here" : "with " + id.root_addr);
  return Status::Ok();
}

void Job::OnRendezvous(Result<NodeTable> table) {
  in_rendezvous_ = false;
  if (!table.ok()) {
    Logger("engine")->error("job '{}': rendezvous failed: {}", id_, table.status().ToString());
    // A root agent that closed the connection is a lost peer (node 0), not a busy service.
    Status why = table.status();
    if (why.code() == Code::kUnavailable) why = PeerLost(why.message());
    Lose(why.Annotate("job '" + id_ + "' rendezvous " +
                      (group_->node_rank() == 0 ? std::string("hosted here")
                                                : "with the agent of " + group_->DescribeNode(0)) +
                      " failed"));
    return;
  }
  agent_addrs_ = table->agents;
  transports_.assign(table->begin(), table->end());
  // The root's own entry: the address its members reached it at, when the joiners did not say.
  if (group_->node_rank() != 0 && !agent_addrs_.empty() && agent_addrs_[0].empty() &&
      !members_.empty()) {
    for (Member* m : members_) {
      if (m != nullptr) agent_addrs_[0] = m->identity().root_addr;
    }
  }
  int unreachable = -1;
  auto peers = net_->ConnectNodes(*table, group_->node_rank(), &unreachable);
  if (!peers.ok()) {
    Lose(PeerLost(group_->DescribeNode(unreachable) + " of job '" + id_ +
                  "' is unreachable: " + peers.status().message()));
    return;
  }
  group_->SetPeers(std::move(*peers));
  if (points_ != nullptr) points_->SetReady();
  Logger("engine")->info("job '{}': connected to {} peer agents", id_, group_->num_nodes() - 1);
  std::vector<InstanceId> waiting = std::move(waiting_for_network_);
  for (const InstanceId& inst : waiting) {
    auto it = pending_.find(inst);
    if (it != pending_.end()) Run(inst, it->second);
  }
}

PointToPoint& Job::Points() {
  if (points_ != nullptr) return *points_;
  int node = group_ != nullptr ? group_->node_rank() : 0;
  auto send = [this](int to, const PeerHeader& h, const BufferSpan& payload, int32_t priority,
                     std::shared_ptr<const void> keep, std::function<void(const Status&)> done) {
    // Without a priority of its own, a message goes ahead of the collectives that have none: a
    // pipeline stage waits for it (docs/design.md#scheduling).
    if (priority == 0) priority = ipc::kPointToPointPriority;
    group_->SendPoint(to, h, payload, priority, std::move(keep), std::move(done));
  };
  auto complete = [this](int local_rank, const ValidatedOp& op, const Status& st, uint64_t seq,
                         int source, uint64_t elapsed_ns) {
    if (!st.ok() && first_failure_.ok() && lost_.ok()) first_failure_ = st;
    Account(op, st, elapsed_ns, "p2p");
    Member* m = members_[static_cast<size_t>(local_rank)];
    if (m == nullptr) return;
    OpReport report;
    report.status = st;
    report.source = source;
    m->Complete(op.op_id, st, seq, elapsed_ns, &report);
  };
  points_ = std::make_unique<PointToPoint>(ranks_, node, engine_.chunk_bytes, std::move(send),
                                           std::move(complete));
  if (group_ != nullptr && group_->ready()) points_->SetReady();
  return *points_;
}

void Job::OnPointMessage(const PeerHeader& h, const uint8_t* data, size_t len) {
  if (Status st = Points().OnMessage(h, data, len); !st.ok()) {
    Logger("engine")->error("job '{}': {}", id_, st.message());
    GiveUp(st.Annotate("job '" + id_ + "'"));
  }
}

void Job::MarkNodeGone(int node) {
  if (group_ == nullptr || node < 0 || node >= group_->num_nodes()) return;
  gone_nodes_.resize(static_cast<size_t>(group_->num_nodes()), false);
  if (gone_nodes_[static_cast<size_t>(node)]) return;
  gone_nodes_[static_cast<size_t>(node)] = true;
  if (on_node_gone_) on_node_gone_();
}

void Job::OnPeerMessage(const PeerHeader& h, const uint8_t* data, size_t len) {
  // Who has no member left is news even once the job failed here: a new generation must not wait
  // for those nodes.
  if (static_cast<PeerMsg>(h.type) == PeerMsg::kJobLeft) MarkNodeGone(h.from_node);
  // A node's next agent, back after the job failed here: told at once instead of waiting for a
  // welcome that never comes.
  if (group_ != nullptr && group_->ready() && !lost_.ok() &&
      static_cast<PeerMsg>(h.type) == PeerMsg::kHandOver &&
      static_cast<JobHandOver::Step>(h.key) == JobHandOver::Step::kBack && net_ != nullptr &&
      h.from_node >= 0 && h.from_node < group_->num_nodes() && h.from_node != group_->node_rank()) {
    back_address_ = std::string(reinterpret_cast<const char*>(data), data != nullptr ? len : 0);
    back_node_ = h.from_node;
    return MarkActive();  // Pump tells it (TakeBack)
  }
  // After ranks left in order the others may still exchange messages.
  bool point = IsPointToPointMessage(h.type);
  if (group_ != nullptr && (lost_.ok() || (point && failed_.ok()))) {
    MarkActive();
    group_->OnMessage(h, data, len);
  }
}

RecvTarget Job::RecvBuffer(const PeerHeader& h, size_t len) {
  return group_ != nullptr && lost_.ok() ? group_->RecvBuffer(h, len) : RecvTarget{};
}

void Job::OnPeerLost(PeerId peer, const Status& why) {
  if (group_ == nullptr || !group_->ready()) return;
  int node = group_->NodeOfPeer(peer);
  if (node < 0) return;
  // A node whose agent finished handing over goes quiet: its next agent follows.
  if (hand_over_ && hand_over_->leaving() == node && hand_over_->away()) return;
  MarkNodeGone(node);
  std::string lost = group_->DescribeNode(node) + " of job '" + id_ + "' is lost";
  if (lost_.ok()) {
    lost_node_ = node;
    // The other nodes may still reach that node, or notice its silence only later: they fail the
    // job now too, whatever their instances wait for.
    group_->SayJobFailed(
        PeerLost(lost + " (reported by " + group_->DescribeNode(group_->node_rank()) +
                 "): " + why.message()),
        node);
  }
  Lose(PeerLost(lost + ": " + why.message()));
}

// ---- The hand-over across nodes: a stop point every node agrees on, then the next agent ----

uint64_t Job::HandOverWaitNs() const { return uint64_t{engine_.hand_over_wait_ms} * 1'000'000; }

void Job::BeginHandOver(int leaving) {
  int me = group_->node_rank();
  hand_over_.emplace(group_->num_nodes(), me, leaving, ipc::MonotonicNs());
  Logger("engine")->info(
      "job '{}': {} hands over; instances stop starting until the nodes agree "
      "where",
      id_, leaving == me ? "this node" : group_->DescribeNode(leaving));
  group_->SendHandOver(static_cast<uint64_t>(JobHandOver::Step::kMark), leaving,
                       EncodeSeqMap(started_next_));
  if (hand_over_->Mark(me, started_next_)) OnStopKnown();
}

void Job::OnHandOverMessage(const PeerHeader& h, const uint8_t* data, size_t len) {
  if (!lost_.ok() || group_ == nullptr) return;
  int me = group_->node_rank(), from = h.from_node;
  switch (static_cast<JobHandOver::Step>(h.key)) {
    case JobHandOver::Step::kMark: {
      std::optional<JobHandOver::SeqMap> next = DecodeSeqMap(data, len);
      if (!next) {
        return Lose(Internal(group_->DescribeNode(from) + " of job '" + id_ +
                             "' sent a hand-over mark that does not parse"));
      }
      if (!hand_over_) {
        if (h.lost_node < 0 || h.lost_node >= group_->num_nodes() || h.lost_node == me) return;
        BeginHandOver(h.lost_node);
      } else if (hand_over_->leaving() != h.lost_node || hand_over_->resuming()) {
        // One node at a time (a rolling restart): the other agent's part never completes, and
        // the job fails when it stops, as it would without a hand-over.
        Logger("engine")->warn("job '{}': {} hands over while {} does; it is not waited for", id_,
                               group_->DescribeNode(h.lost_node),
                               group_->DescribeNode(hand_over_->leaving()));
        return;
      }
      if (hand_over_->Mark(from, *next)) OnStopKnown();
      return;
    }
    case JobHandOver::Step::kLeft:
      if (!hand_over_ || hand_over_->leaving() != from || hand_over_->leaving_here()) return;
      hand_over_->Left(ipc::MonotonicNs() + HandOverWaitNs());
      // Told that it was heard, then let go in order before it exits (its next agent has a new
      // address); the close flushes the answer first.
      group_->SendHandOver(static_cast<uint64_t>(JobHandOver::Step::kLeftSeen), from, "");
      net_->Retire(group_->peers()[static_cast<size_t>(from)]);
      Logger("engine")->info(
          "job '{}': {} handed over; its next agent has {} ms to take its "
          "ranks back",
          id_, group_->DescribeNode(from), engine_.hand_over_wait_ms);
      MarkActive();  // its deadline counts from now
      return;
    case JobHandOver::Step::kBack:
      if (!hand_over_ || hand_over_->leaving() != from || !hand_over_->away()) return;
      // Connected from Pump, not here: this runs inside the transport's progress, where a new
      // connection to the sender may replace the very one this message came on.
      back_address_ = std::string(reinterpret_cast<const char*>(data), data != nullptr ? len : 0);
      return MarkActive();
    case JobHandOver::Step::kLeftSeen:
      if (hand_over_ && hand_over_->leaving_here()) hand_over_->LeftSeen(from);
      return;
    case JobHandOver::Step::kWelcome:
      if (!hand_over_ || !hand_over_->resuming() || !hand_over_->Welcome(from)) return;
      Logger("engine")->info("job '{}': every other node took this node's ranks back", id_);
      hand_over_.reset();
      return RunHeld();
  }
}

void Job::TakeBack() {
  std::string address = std::move(*back_address_);
  back_address_.reset();
  bool failed = !lost_.ok();
  int node = failed ? back_node_ : hand_over_->leaving();
  Result<PeerId> peer = net_->Connect(address);
  if (!peer.ok()) {
    if (failed) return;
    return Lose(PeerLost("the next agent of " + group_->DescribeNode(node) + " of job '" + id_ +
                         "' is unreachable: " + peer.status().message()));
  }
  PeerId old = group_->peers()[static_cast<size_t>(node)];
  group_->ReplacePeer(node, *peer);
  net_->Release(old);
  if (static_cast<size_t>(node) < transports_.size())
    transports_[static_cast<size_t>(node)] = address;
  if (failed) return group_->SayJobFailedTo(node, lost_);
  group_->SendHandOver(static_cast<uint64_t>(JobHandOver::Step::kWelcome), node, "");
  Logger("engine")->info("job '{}': {} is back with its next agent; the job goes on", id_,
                         group_->DescribeNode(node));
  hand_over_.reset();
  RunHeld();
}

void Job::OnStopKnown() {
  Logger("engine")->info(
      "job '{}': the nodes agreed where {} hands over ({} keys)", id_,
      hand_over_->leaving_here() ? "this node" : group_->DescribeNode(hand_over_->leaving()),
      hand_over_->stop().size());
  if (hand_over_->leaving_here()) {
    // What is past the stop point goes back to this node's ranks, for the next agent: no other
    // node starts it before then either.
    GiveBack([this](const InstanceId& inst, const Pending& p) {
      return p.failed.ok() && hand_over_->PastStop(inst.first, inst.second);
    });
  }
  RunHeld();
  MaybeFinishHandOver();
}

void Job::RunHeld() {
  std::vector<InstanceId> held = std::move(held_);
  held_.clear();
  std::sort(held.begin(), held.end());
  for (const InstanceId& inst : held) {
    auto it = pending_.find(inst);
    if (it != pending_.end() && it->second.failed.ok()) Run(inst, it->second);
  }
}

void Job::MaybeFinishHandOver() {
  if (!hand_over_ || !hand_over_->leaving_here() || !hand_over_->stop_known() ||
      handed_over_here_ || !lost_.ok())
    return;
  // Everything below the stop point finished here: every rank submitted it, and it ran.
  for (const auto& [inst, p] : pending_) {
    if (!hand_over_->PastStop(inst.first, inst.second)) return;
  }
  for (const auto& [key, stop] : hand_over_->stop()) {
    for (size_t r = 0; r < next_seq_.size(); ++r) {
      auto it = next_seq_[r].find(key);
      if ((it != next_seq_[r].end() ? it->second : 0) < stop) return;
    }
  }
  if (group_->busy()) return;  // its last sends are still on the way
  handed_over_here_ = true;
  group_->SendHandOver(static_cast<uint64_t>(JobHandOver::Step::kLeft), group_->node_rank(), "");
  group_->Detach();
  for (Member* m : members_) {
    if (m != nullptr) m->HandedOver();
  }
  Logger("engine")->info(
      "job '{}': this node's part is handed over; its ranks come back to the "
      "next agent",
      id_);
}

std::optional<HandOverRecord> Job::HandOverRecordOf() const {
  if (!handed_over_here_) return std::nullopt;
  HandOverRecord r;
  r.job_id = id_;
  r.token = token_;
  r.node_rank = group_->node_rank();
  r.transports = transports_;
  r.agents = agent_addrs_;
  r.agents.resize(transports_.size());
  r.stop = hand_over_->stop();
  return r;
}

Status Job::ResumeNetwork() {
  int me = group_->node_rank();
  const HandOverRecord& r = *resume_;
  if (static_cast<int>(r.transports.size()) != group_->num_nodes() || r.node_rank != me) {
    return FailedPrecondition("job '" + id_ + "': the hand-over left for this agent is of node " +
                              std::to_string(r.node_rank) + " of " +
                              std::to_string(r.transports.size()) + ", this client's is node " +
                              std::to_string(me) + " of " + std::to_string(group_->num_nodes()));
  }
  agent_addrs_ = r.agents;
  transports_ = r.transports;
  transports_[static_cast<size_t>(me)] = net_->transport()->address();
  NodeTable table(transports_.begin(), transports_.end());
  int unreachable = -1;
  auto peers = net_->ConnectNodes(table, me, &unreachable);
  if (!peers.ok()) {
    return PeerLost(group_->DescribeNode(unreachable) + " of job '" + id_ +
                    "' is unreachable: " + peers.status().message());
  }
  group_->SetPeers(std::move(*peers));
  if (points_ != nullptr) points_->SetReady();
  hand_over_ = JobHandOver::Resuming(group_->num_nodes(), me, r.stop);
  hand_over_->set_deadline_ns(ipc::MonotonicNs() + HandOverWaitNs());
  started_next_ = r.stop;
  for (auto& next : next_seq_)
    next = std::unordered_map<uint64_t, uint64_t>(r.stop.begin(), r.stop.end());
  group_->SendHandOver(static_cast<uint64_t>(JobHandOver::Step::kBack), me,
                       net_->transport()->address());
  Logger("engine")->info(
      "job '{}': node {} of {}, taken over from the previous agent; waiting "
      "for the other nodes to take it back",
      id_, me, group_->num_nodes());
  MarkActive();
  return Status::Ok();
}

void Job::OnDeviceMessage(const PeerHeader& h, const uint8_t* data, size_t len) {
  if (!lost_.ok()) return;
  if (device() == nullptr) {
    return Lose(FailedPrecondition("job '" + id_ +
                                   "': node 0's agent runs it on NCCL, but this agent has no GPU "
                                   "path"));
  }
  if (Status st = ActiveDevice()->OnMessage(h, data, len); !st.ok()) Lose(st);
}

// ---- What a job reports: per-op metrics and its /status entry ----

void Job::Account(const ValidatedOp& op, const Status& st, uint64_t elapsed_ns,
                  std::string_view algo) {
  AgentMetrics* m = Counting(metrics_);
  if (m == nullptr) return;
  uint64_t key = reinterpret_cast<uintptr_t>(algo.data()) << 16 |
                 static_cast<uint64_t>(op.kind) << 8 | static_cast<uint64_t>(st.code());
  auto it = op_counters_.find(key);
  if (it == op_counters_.end()) {
    it = op_counters_
             .emplace(key,
                      m->OpsCounter(MetricsLabel(), op.kind, std::string(algo).c_str(), st.code()))
             .first;
  }
  it->second->Inc();
  m->duration[static_cast<size_t>(op.kind)]->Observe(static_cast<double>(elapsed_ns) * 1e-9);
  if (!st.ok()) m->errors[static_cast<int>(st.code())]->Inc();
}

const std::string& Job::MetricsLabel() {
  // Every generation of a job is the same job to its users: one label.
  // Held until the job goes: a job's series are never retired under it.
  if (job_label_.empty()) job_label_ = metrics_->AcquireJobLabel(base_id_.empty() ? id_ : base_id_);
  return job_label_;
}

const SendScheduler* Job::scheduler() const {
  return net_ != nullptr ? net_->scheduler() : nullptr;
}

void Job::AddGauges(const std::map<uint64_t, double>& shares,
                    std::map<std::string, Gauges>* by_label) {
  Gauges& g = (*by_label)[MetricsLabel()];
  g.job_class = job_class_;
  g.weight = job_weight_;
  const SendScheduler* sched = scheduler();
  const SendScheduler::JobStats* js = sched != nullptr ? sched->job_stats(hash_) : nullptr;
  if (js == nullptr) return;
  g.sent_bytes += static_cast<double>(js->sent_bytes);
  g.wait_s += js->wait_s;
  g.queued += static_cast<double>(js->queued);
  if (auto it = shares.find(hash_); it != shares.end()) g.share += it->second;
}

nlohmann::json Job::StatusJson() const {
  nlohmann::json j = {{"id", id_},
                      {"job", base_id_},
                      {"generation", generation_},
                      {"world_size", world_size_},
                      {"local_size", local_size_},
                      {"members", member_count()},
                      {"pending", pending_.size()},
                      {"gpu_mode", ipc::GpuModeName(gpu_mode_)},
                      {"class", ipc::JobClassName(job_class_)},
                      {"weight", job_weight_},
                      {"state", lost_.ok() ? "ok" : "failed"}};
  if (!lost_.ok()) j["failure"] = lost_.ToString();
  if (group_ != nullptr) {
    j["nodes"] = group_->num_nodes();
    j["node_rank"] = group_->node_rank();
    j["network"] = group_->ready() ? "connected" : "rendezvous";
    // Its chunks in the send scheduler: share of the agent's last sends, and queueing delay.
    if (const SendScheduler* sched = scheduler()) {
      const SendScheduler::JobStats* js = sched->job_stats(hash_);
      SendScheduler::JobStats none;
      if (js == nullptr) js = &none;
      j["scheduler"] = {
          {"queued_chunks", js->queued},
          {"sent_chunks", js->sent},
          {"sent_bytes", js->sent_bytes},
          {"mean_wait_ms", js->sent ? js->wait_s * 1e3 / static_cast<double>(js->sent) : 0.0},
          {"recent_share", sched->RecentShare(hash_)}};
    }
  } else {
    j["nodes"] = 1;
  }
  if (points_ != nullptr) j["point_to_point"] = points_->StatusJson();
  if (device_ != nullptr && device_->started()) j["nccl"] = device_->StatusJson();
  if (hand_over_ && group_ != nullptr) {
    int node = hand_over_->leaving();
    j["hand_over"] = {
        {"node", node},
        {"role", hand_over_->resuming()       ? "next agent: waiting for the other nodes"
                 : hand_over_->leaving_here() ? (handed_over_here_ ? "handed over" : "leaving")
                 : hand_over_->away()         ? "waiting for the node's next agent"
                                              : "agreeing where the node stops"},
        {"stop_agreed", hand_over_->stop_known()},
        {"held", held_.size()}};
  }
  j["recent_ops"] = recorder_.Json([this](uint64_t key, uint64_t seq) {
    return group_ != nullptr ? group_->WaitingFor(key, seq) : std::string();
  });
  return j;
}

}  // namespace outrider::agent
