// Job membership, op matching, agreement checks and execution.
#include "agent/engine/job.h"

#include <cstdio>

#include "agent/control/session.h"
#include "agent/bootstrap/rendezvous.h"
#include "agent/engine/local_collectives.h"
#include "agent/engine/network.h"
#include "agent/engine/sparse/local.h"
#include "agent/log.h"
#include "agent/observability.h"
#include "ipc/event_fd.h"

namespace outrider::agent {
Job::Job(std::string id, int world_size, int local_size, Network* net)
    : id_(std::move(id)),
      world_size_(world_size),
      local_size_(local_size),
      members_(static_cast<size_t>(local_size), nullptr),
      next_seq_(static_cast<size_t>(local_size)),
      net_(net),
      hash_(HashBytes(id_.data(), id_.size())) {}

Job::~Job() {
  rdv_client_.reset();
  if (group_ != nullptr && net_ != nullptr) {
    group_->SayJobLeft(lost_node_);
    net_->Release(group_->peers(), group_->node_rank());
  } else if (group_ != nullptr) {
    group_->FailAll(Cancelled("job ended"));
  }
  if (net_ != nullptr && group_ != nullptr && group_->node_rank() == 0) {
    net_->rendezvous()->Withdraw(id_, Cancelled("job '" + id_ + "' ended at the root agent"));
  }
}

bool Job::busy() const { return group_ != nullptr && group_->busy(); }

Status Job::StartNetwork(const Session* first) {
  const ClientIdentity& id = first->identity();
  int num_nodes = world_size_ / local_size_;
  int node = id.rank / local_size_;
  if (net_ == nullptr) {
    return FailedPrecondition("job '" + id_ + "' spans " + std::to_string(num_nodes) +
                              " nodes, but this agent runs without an agent port (--port 0)");
  }
  if (node != 0 && id.root_addr.empty()) {
    return FailedPrecondition("job '" + id_ + "' spans " + std::to_string(num_nodes) +
                              " nodes: set OUTRIDER_ROOT_ADDR (host:port of node 0's agent) or MASTER_ADDR");
  }
  token_ = id.token;
  if (token_.empty()) Logger("engine")->warn("job '{}' has no OUTRIDER_JOB_TOKEN: any agent that knows its id may join", id_);
  group_ = std::make_unique<NodeGroup>(id_, hash_, net_->self_hash(), num_nodes, node, local_size_,
                                       net_->transport(),
                                       [this](uint64_t key, uint64_t seq, const Status& st, const std::vector<OpReport>* reports) {
                                         OnGroupDone(key, seq, st, reports);
                                       },
                                       NodeGroupOptions{net_->options().engine.direct_max_bytes, net_->options().engine.chunk_bytes,
                                                        net_->options().engine.sparse_block_rows,
                                                        net_->options().engine.link_bytes_per_s});
  group_->set_scheduler(net_->scheduler());
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
  JobShape shape{id_, token_, num_nodes, local_size_};
  auto done = [this](Result<NodeTable> table) { OnRendezvous(std::move(table)); };
  if (node == 0) {
    net_->rendezvous()->Offer(shape, net_->transport()->address(), done);
  } else {
    rdv_client_ = std::make_unique<RendezvousClient>(net_->loop(), shape, node, id.root_addr,
                                                     net_->transport()->address(),
                                                     net_->options().rendezvous_timeout_ms, done);
  }
  Logger("engine")->info("job '{}': node {} of {}, rendezvous {}", id_, node, num_nodes,
                         node == 0 ? "hosted here" : "with " + id.root_addr);
  return Status::Ok();
}

void Job::OnRendezvous(Result<NodeTable> table) {
  if (!table.ok()) {
    Logger("engine")->error("job '{}': rendezvous failed: {}", id_, table.status().ToString());
    Lose(table.status().Annotate("job '" + id_ + "' rendezvous failed"));
    return;
  }
  auto peers = net_->ConnectNodes(*table, group_->node_rank());
  if (!peers.ok()) {
    Lose(peers.status().Annotate("job '" + id_ + "': connecting to peer agents"));
    return;
  }
  group_->SetPeers(std::move(*peers));
  Logger("engine")->info("job '{}': connected to {} peer agents", id_, group_->num_nodes() - 1);
  std::vector<InstanceId> waiting = std::move(waiting_for_network_);
  for (const InstanceId& inst : waiting) {
    auto it = pending_.find(inst);
    if (it != pending_.end()) Run(inst, it->second);
  }
}

void Job::OnGroupDone(uint64_t key, uint64_t seq, const Status& st, const std::vector<OpReport>* reports) {
  auto it = pending_.find({key, seq});
  if (it == pending_.end()) return;  // already failed here
  Pending& p = it->second;
  uint64_t elapsed = ipc::MonotonicNs() - p.first_ns;
  for (size_t r = 0; r < p.ops.size(); ++r) {
    if (p.op_ids[r] == 0 || members_[r] == nullptr) continue;
    const OpReport* rep = reports != nullptr && r < reports->size() ? &(*reports)[r] : nullptr;
    const Status& own = st.ok() && rep != nullptr ? rep->status : st;
    members_[r]->Complete(p.op_ids[r], own, seq, elapsed, rep);
    if (p.ops[r]) Account(*p.ops[r], own, elapsed, rep);
  }
  recorder_.Ended(key, seq, st);
  pending_.erase(it);
}

void Job::OnPeerMessage(const PeerHeader& h, const uint8_t* data, size_t len) {
  if (group_ != nullptr && lost_.ok()) group_->OnMessage(h, data, len);
}

uint8_t* Job::RecvBuffer(const PeerHeader& h, size_t len) {
  return group_ != nullptr && lost_.ok() ? group_->RecvBuffer(h, len) : nullptr;
}

void Job::OnPeerLost(PeerId peer, const Status& why) {
  if (group_ == nullptr || !group_->ready()) return;
  int node = group_->NodeOfPeer(peer);
  if (node < 0) return;
  if (lost_.ok()) lost_node_ = node;
  Lose(PeerLost(group_->DescribeNode(node) + " of job '" + id_ + "' is lost: " + why.message()));
}

void Job::Lose(const Status& why) {
  if (lost_.ok()) {
    Logger("engine")->warn("job '{}' failed for good ({}); its last ops:\n{}", id_, why.ToString(), recorder_.Dump());
  }
  if (lost_.ok()) lost_ = why;
  FailAll(lost_);
  if (group_ != nullptr) group_->FailAll(lost_);
}

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
  if (member_count() > 0 && world_size_ > local_size_ && !TokensEqual(id.token, token_)) {
    return PermissionDenied("job token differs from the one the job's other local ranks gave");
  }
  Session*& slot = members_[static_cast<size_t>(id.local_rank)];
  if (slot != nullptr) {
    return FailedPrecondition("local rank " + std::to_string(id.local_rank) + " of job '" + id_ +
                              "' is already connected (pid " +
                              std::to_string(slot->identity().peer.pid) + ")");
  }
  if (world_size_ > local_size_ && group_ == nullptr) OUTRIDER_RETURN_IF_ERROR(StartNetwork(session));
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
  Lose(lost_);
}

void Job::Fail(Pending& p, const Status& why, uint64_t seq) {
  uint64_t elapsed = ipc::MonotonicNs() - p.first_ns;
  for (size_t r = 0; r < p.ops.size(); ++r) {
    if (p.op_ids[r] != 0 && members_[r] != nullptr) {
      members_[r]->Complete(p.op_ids[r], why, seq, 0);
      if (p.ops[r]) {
        Account(*p.ops[r], why, elapsed, nullptr);
        recorder_.Ended(p.ops[r]->key, seq, why);
      }
    }
    p.op_ids[r] = 0;  // completed: later calls must not complete it again
  }
}

void Job::Account(const ValidatedOp& op, const Status& st, uint64_t elapsed_ns, const OpReport* report) {
  AgentMetrics& m = Metrics();
  if (!m.enabled()) return;
  // The algorithm label: how the op crossed nodes (a small fixed set).
  static constexpr const char* kPaths[] = {"local", "direct", "ring", "chain"};
  uint32_t algo_index = 0;
  std::string_view algo = kPaths[0];
  if (op.kind == ipc::OpKind::kSparseAllreduce && report != nullptr) {
    algo_index = 8 + report->algo;
    algo = ipc::SparseAlgoName(static_cast<ipc::SparseAlgo>(report->algo));
  } else if (group_ != nullptr) {
    // The node group's own test: a node's share (allgather) or the buffer (others) past direct_max_bytes.
    uint64_t bytes = op.kind == ipc::OpKind::kAllgather ? op.send_bytes * static_cast<uint64_t>(local_size_) : op.recv_bytes;
    bool large = bytes > net_->options().engine.direct_max_bytes;
    algo_index = !large ? 1 : op.kind == ipc::OpKind::kBroadcast ? 3 : (op.kind == ipc::OpKind::kAllreduce || op.kind == ipc::OpKind::kAllgather) ? 2 : 1;
    algo = kPaths[algo_index];
  }
  uint32_t key = (static_cast<uint32_t>(op.kind) * 64 + algo_index) * 32 + static_cast<uint32_t>(st.code());
  auto it = op_counters_.find(key);
  if (it == op_counters_.end()) {
    if (job_label_.empty()) job_label_ = m.JobLabel(id_);
    it = op_counters_.emplace(key, m.OpsCounter(job_label_, op.kind, std::string(algo).c_str(), st.code())).first;
  }
  it->second->Inc();
  m.duration[static_cast<size_t>(op.kind)]->Observe(static_cast<double>(elapsed_ns) * 1e-9);
  if (!st.ok()) m.errors[static_cast<int>(st.code())]->Inc();
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
  // Multi-node jobs name job ranks (the error reaches every node); single-node ones local ranks.
  auto name = [&](int local) {
    if (group_ == nullptr || members_[static_cast<size_t>(local)] == nullptr) return "local rank " + std::to_string(local);
    return "rank " + std::to_string(members_[static_cast<size_t>(local)]->identity().rank);
  };
  auto differ = [&](const char* field, const std::string& a, const std::string& b) {
    return Mismatch(std::string(ipc::OpKindName(ref->kind)) + " " + InstanceName(key, seq) +
                    " in job '" + id_ + "': ranks disagree on " + field + ": " + name(ref_rank) + " has " + a +
                    ", " + name(rank) + " has " + b);
  };
  if (ref->kind != op.kind) {
    return differ("op kind", std::string(ipc::OpKindName(ref->kind)),
                  std::string(ipc::OpKindName(op.kind)));
  }
  if (op.kind == ipc::OpKind::kBarrier) return Status::Ok();
  if (ref->dtype != op.dtype) {
    return differ("dtype", std::string(ipc::DTypeName(ref->dtype)), std::string(ipc::DTypeName(op.dtype)));
  }
  if (ref->count != op.count) {
    return differ(ipc::IsSparse(op.kind) ? "dim" : "count", std::to_string(ref->count), std::to_string(op.count));
  }
  bool reduces = op.kind == ipc::OpKind::kAllreduce || op.kind == ipc::OpKind::kReduceScatter;
  if (reduces && ref->reduce_op != op.reduce_op) {
    return differ("reduce op", std::string(ipc::ReduceOpName(ref->reduce_op)),
                  std::string(ipc::ReduceOpName(op.reduce_op)));
  }
  if (op.kind == ipc::OpKind::kBroadcast && ref->root != op.root) {
    return differ("root", std::to_string(ref->root), std::to_string(op.root));
  }
  if (ipc::IsSparse(op.kind)) {
    if (ref->rows != op.rows) return differ("rows", std::to_string(ref->rows), std::to_string(op.rows));
    if (ref->algo != op.algo) {
      bool replicated = op.kind == ipc::OpKind::kSparseAllreduce;
      auto name = [&](uint32_t a) {
        return replicated ? std::string(ipc::SparseAlgoName(static_cast<ipc::SparseAlgo>(a))) : std::string(a == 0 ? "range" : "hash");
      };
      return differ(replicated ? "algorithm" : "shard scheme", name(ref->algo), name(op.algo));
    }
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
    recorder_.Begin(op.key, seq, op.kind, op.dtype, op.kind == ipc::OpKind::kAlltoallv ? op.send_bytes : op.count, local_size_);
    // An iteration ends when a key comes round again.
    if (!iteration_keys_.insert(op.key).second) {
      iteration_keys_.clear();
      iteration_keys_.insert(op.key);
      iteration_index_ = 0;
    }
    p.default_priority = std::max(0, kDefaultPriorityTop - kDefaultPriorityStep * iteration_index_++);
  }
  ++p.arrived;
  recorder_.Arrived(op.key, seq, p.arrived);
  if (p.failed.ok()) {
    Status agree = CheckAgreement(p, rank, op, op.key, seq);
    if (!agree.ok()) {
      Logger("engine")->warn("{}", agree.message());
      p.failed = agree;
      Fail(p, agree, seq);
      // The other nodes would wait for this node's contribution: they fail with the same error.
      if (group_ != nullptr) group_->Abort(op.key, seq, agree);
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
  Metrics().queue_wait->Observe(static_cast<double>(ipc::MonotonicNs() - p.first_ns) * 1e-9);
  recorder_.Started(inst.first, inst.second, group_ != nullptr ? "peer nodes" : "");
  std::vector<const ValidatedOp*> ops;
  ops.reserve(p.ops.size());
  for (auto& o : p.ops) ops.push_back(&*o);
  if (group_ != nullptr) {
    if (!group_->ready()) {
      waiting_for_network_.push_back(inst);
      return;
    }
    // Explicit priorities from the trainers win; without hints, later submissions of an iteration
    // (earlier layers, needed first by the next forward pass) go first.
    int32_t priority = 0;
    bool hinted = false;
    for (const ValidatedOp* o : ops) {
      if (o->priority != 0) priority = hinted ? std::min(priority, o->priority) : o->priority;
      hinted = hinted || o->priority != 0;
    }
    group_->Start(inst.first, inst.second, ops, hinted ? priority : p.default_priority);  // completes through OnGroupDone
    return;
  }
  if (ipc::IsSparse(ops[0]->kind)) {
    Status overall;
    std::vector<OpReport> reports = sparse::ExecuteLocal(ops, local_size_, &overall);
    uint64_t elapsed = ipc::MonotonicNs() - p.first_ns;
    for (size_t r = 0; r < p.ops.size(); ++r) {
      const Status& own = overall.ok() ? reports[r].status : overall;
      members_[r]->Complete(p.op_ids[r], own, inst.second, elapsed, &reports[r]);
      Account(*p.ops[r], own, elapsed, &reports[r]);
    }
    recorder_.Ended(inst.first, inst.second, overall);
    pending_.erase(inst);
    return;
  }
  Status st = ExecuteLocal(ops);
  uint64_t elapsed = ipc::MonotonicNs() - p.first_ns;
  for (size_t r = 0; r < p.ops.size(); ++r) {
    members_[r]->Complete(p.op_ids[r], st, inst.second, elapsed);
    Account(*p.ops[r], st, elapsed, nullptr);
  }
  recorder_.Ended(inst.first, inst.second, st);
  pending_.erase(inst);
}

void Job::ExpireOps(uint64_t now_ns, uint64_t timeout_ns) {
  for (auto it = pending_.begin(); it != pending_.end();) {
    Pending& p = it->second;
    if (!p.failed.ok() || p.arrived == local_size_ || now_ns - p.first_ns < timeout_ns) {
      ++it;
      continue;
    }
    std::string missing;
    for (size_t r = 0; r < p.ops.size(); ++r) {
      if (!p.ops[r]) missing += (missing.empty() ? "" : ", ") + std::to_string(r);
    }
    Status st = DeadlineExceeded(InstanceName(it->first.first, it->first.second) + " in job '" + id_ +
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
    if (p.failed.ok() && p.arrived < local_size_) next = std::min(next, p.first_ns + timeout_ns);
  }
  return next;
}

Status JobTable::Join(Session* session) {
  const ClientIdentity& id = session->identity();
  auto it = jobs_.find(id.job_id);
  if (it == jobs_.end()) {
    it = jobs_.emplace(id.job_id, std::make_unique<Job>(id.job_id, id.world_size, id.local_world_size, net_)).first;
  }
  Status st = it->second->AddMember(session);
  if (!st.ok() && it->second->member_count() == 0) jobs_.erase(it);
  return st;
}

void JobTable::Leave(Session* session, const Status& why) {
  auto it = jobs_.find(session->identity().job_id);
  if (it == jobs_.end()) return;
  it->second->RemoveMember(session, why);
  if (it->second->member_count() == 0 && !it->second->busy()) jobs_.erase(it);
}

bool JobTable::Pump() {
  bool any = false;
  for (auto& [id, job] : jobs_) any |= job->Pump();
  return any;
}

void JobTable::Sweep() {
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    if (it->second->member_count() == 0 && !it->second->busy()) {
      it = jobs_.erase(it);
    } else {
      ++it;
    }
  }
}

Job* JobTable::FindByHash(uint64_t hash) {
  for (auto& [id, job] : jobs_) {
    if (job->hash() == hash) return job.get();
  }
  return nullptr;
}

void JobTable::OnPeerLost(PeerId peer, const Status& why) {
  for (auto& [id, job] : jobs_) job->OnPeerLost(peer, why);
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

namespace outrider::agent {

nlohmann::json Job::StatusJson() const {
  nlohmann::json j = {{"id", id_}, {"world_size", world_size_}, {"local_size", local_size_},
                      {"members", member_count()}, {"pending", pending_.size()},
                      {"state", lost_.ok() ? "ok" : "failed"}};
  if (!lost_.ok()) j["failure"] = lost_.ToString();
  if (group_ != nullptr) {
    j["nodes"] = group_->num_nodes();
    j["node_rank"] = group_->node_rank();
    j["network"] = group_->ready() ? "connected" : "rendezvous";
  } else {
    j["nodes"] = 1;
  }
  j["recent_ops"] = recorder_.Json([this](uint64_t key, uint64_t seq) {
    return group_ != nullptr ? group_->WaitingFor(key, seq) : std::string();
  });
  return j;
}

nlohmann::json JobTable::StatusJson() const {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [id, job] : jobs_) out.push_back(job->StatusJson());
  return out;
}

size_t JobTable::PendingCount() const {
  size_t n = 0;
  for (const auto& [id, job] : jobs_) n += job->pending_count();
  return n;
}

}  // namespace outrider::agent
