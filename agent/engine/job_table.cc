// The agent's jobs.
#include "agent/engine/job_table.h"

#include <algorithm>
#include <chrono>
#include <ctime>

#include "agent/log.h"
#include "agent/membership/reformer.h"
#include "agent/net/network.h"
#include "agent/observability.h"
#include "ipc/event_fd.h"

namespace outrider::agent {

void JobTable::ForgetEndedComms(uint64_t now_ns) {
  while (!ended_order_.empty() && (now_ns - ended_order_.front().first >= kEndedCommMemoryNs ||
                                   ended_order_.size() > kMaxEndedComms)) {
    auto it = ended_comms_.find(ended_order_.front().second);
    if (it != ended_comms_.end() && it->second.ended_ns == ended_order_.front().first)
      ended_comms_.erase(it);
    ended_order_.pop_front();
  }
}

Status JobTable::EndedBeforeJoin(const ClientIdentity& id, uint64_t now_ns) {
  ForgetEndedComms(now_ns);
  if (!id.comm) return Status::Ok();
  auto it = ended_comms_.find(id.job_id);
  if (it == ended_comms_.end()) return Status::Ok();
  size_t rank = static_cast<size_t>(id.local_rank);
  if (rank < it->second.joined.size() && !it->second.joined[rank]) {
    return FailedPrecondition("communicator '" + id.job_id + "' ended before local rank " +
                              std::to_string(rank) + " joined it: " + it->second.why +
                              " (create it again on every rank)");
  }
  // A rank that was a member creates it again: a new communicator.
  ended_comms_.erase(it);
  return Status::Ok();
}

Status JobTable::Join(Member* member) {
  const ClientIdentity& id = member->identity();
  auto it = jobs_.find(id.job_id);
  if (it == jobs_.end()) {
    OUTRIDER_RETURN_IF_ERROR(EndedBeforeJoin(id, ipc::MonotonicNs()));
    auto job = std::make_unique<Job>(id.job_id, id.world_size, id.local_world_size, net_, engine_,
                                     id.node_ranks, devices_, metrics_);
    if (Job* other = FindByHash(job->hash()); other != nullptr) {
      return FailedPrecondition("job id '" + id.job_id + "' hashes like job '" + other->id() +
                                "' on this agent: choose another job id");
    }
    if (id.handed_over && id.world_size != id.local_world_size)
      OUTRIDER_RETURN_IF_ERROR(ResumeFromRecord(id, job.get()));
    Job* raw = job.get();
    raw->set_on_active([this, raw] { active_.insert(raw); });
    raw->set_on_node_gone([this, raw] {
      if (generations_ != nullptr) generations_->Poke(raw->base_id());
    });
    by_hash_.emplace(raw->hash(), raw);
    it = jobs_.emplace(id.job_id, std::move(job)).first;
  }
  Status st = it->second->AddMember(member);
  if (!st.ok()) {
    DropIfDone(it);
  } else if (!id.comm && id.generation > 0 && generations_ != nullptr) {
    generations_->Entered(it->second->id(), it->second->base_id());
  }
  return st;
}

void JobTable::Leave(Member* member, const Status& why, bool orderly) {
  auto it = jobs_.find(member->identity().job_id);
  if (it == jobs_.end()) return;
  it->second->RemoveMember(member, why, orderly);
  std::string base = it->second->base_id();
  if (generations_ != nullptr && !it->second->comm())
    generations_->Remember(base, it->second->agent_addrs());
  DropIfDone(it);
  // A collection waiting for this rank's ask goes on without it.
  if (generations_ != nullptr) generations_->Poke(base);
}

Job* JobTable::LiveJob(const std::string& base) const {
  Job* best = nullptr;
  for (const auto& [id, job] : jobs_) {
    if (job->comm() || job->member_count() == 0 || job->base_id() != base) continue;
    if (best == nullptr || job->generation() > best->generation()) best = job.get();
  }
  return best;
}

namespace {

membership::GenerationInfo InfoOf(const Job& job) {
  membership::GenerationInfo g;
  g.id = job.id();
  g.base = job.base_id();
  g.token = job.token();
  g.generation = job.generation();
  g.num_nodes = job.num_nodes();
  g.node_rank = job.node_rank();
  g.world_size = job.world_size();
  g.members = job.member_count();
  g.gone.resize(static_cast<size_t>(std::max(job.num_nodes(), 0)));
  for (int n = 0; n < job.num_nodes(); ++n) g.gone[static_cast<size_t>(n)] = job.node_gone(n);
  g.agents = job.agent_addrs();
  return g;
}

}  // namespace

std::optional<membership::GenerationInfo> JobTable::Generation(const std::string& id) const {
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return std::nullopt;
  return InfoOf(*it->second);
}

std::optional<membership::GenerationInfo> JobTable::LiveGeneration(const std::string& base) const {
  Job* job = LiveJob(base);
  if (job == nullptr) return std::nullopt;
  return InfoOf(*job);
}

void JobTable::GiveUp(const std::string& id, const Status& why) {
  if (auto it = jobs_.find(id); it != jobs_.end()) it->second->GiveUp(why);
}

void JobTable::DropIfDone(Jobs::iterator it) {
  if (it->second->member_count() != 0) return;
  if (it->second->busy()) {
    emptied_.insert(it->first);
  } else {
    Erase(it);
  }
}

JobTable::Jobs::iterator JobTable::Erase(Jobs::iterator it) {
  Job* job = it->second.get();
  bool any_joined = false;
  for (int r = 0; r < job->local_size(); ++r) any_joined |= job->ever_joined(r);
  if (job->comm() && any_joined && !job->every_rank_joined()) {
    EndedComm ended;
    ended.ended_ns = ipc::MonotonicNs();
    for (int r = 0; r < job->local_size(); ++r) ended.joined.push_back(job->ever_joined(r));
    ended.why = job->lost().ok() ? "its ranks left" : job->lost().message();
    ended_order_.emplace_back(ended.ended_ns, it->first);
    ended_comms_[it->first] = std::move(ended);
    ForgetEndedComms(ended_order_.back().first);
  }
  if (!job->comm()) {
    auto now = std::chrono::system_clock::now().time_since_epoch();
    finished_.push_back(
        {{"id", job->id()},
         {"job", job->base_id()},
         {"generation", job->generation()},
         {"world_size", job->world_size()},
         {"outcome", job->failed().ok() ? "left" : std::string(CodeName(job->failed().code()))},
         {"why", job->failed().ok() ? "" : job->failed().message()},
         {"ended_unix_s", std::chrono::duration_cast<std::chrono::seconds>(now).count()}});
    if (finished_.size() > kFinishedJobs) finished_.pop_front();
  }
  active_.erase(job);
  emptied_.erase(it->first);
  by_hash_.erase(job->hash());
  return jobs_.erase(it);
}

bool JobTable::Pump() {
  bool any = false;
  // Pumping may mark other jobs active (never erase one): go over a snapshot.
  std::vector<Job*> active(active_.begin(), active_.end());
  for (Job* job : active) {
    any |= job->Pump();
    if (job->pending_count() == 0 && !job->busy()) {
      active_.erase(job);
      job->ClearActive();
    }
  }
  return any;
}

void JobTable::Sweep() {
  std::vector<std::string> emptied(emptied_.begin(), emptied_.end());
  for (const std::string& id : emptied) {
    auto it = jobs_.find(id);
    if (it == jobs_.end() || it->second->member_count() != 0) {
      emptied_.erase(id);
    } else if (!it->second->busy()) {
      Erase(it);
    }
  }
}

Job* JobTable::FindByHash(uint64_t hash) {
  auto it = by_hash_.find(hash);
  return it == by_hash_.end() ? nullptr : it->second;
}

RecvTarget JobTable::RecvBuffer(const PeerHeader& h, size_t len) {
  Job* job = FindByHash(h.job_hash);
  return job == nullptr ? RecvTarget{} : job->RecvBuffer(h, len);
}

bool JobTable::OnPeerMessage(const PeerHeader& h, const uint8_t* data, size_t len) {
  Job* job = FindByHash(h.job_hash);
  if (job == nullptr) return false;
  job->OnPeerMessage(h, data, len);
  return true;
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
  // Only active jobs have collectives waiting for ranks.
  std::vector<Job*> active(active_.begin(), active_.end());
  for (Job* job : active) job->ExpireOps(now_ns, timeout_ns);
}

uint64_t JobTable::NextExpiryNs(uint64_t timeout_ns) {
  uint64_t next = UINT64_MAX;
  for (Job* job : active_) next = std::min(next, job->NextExpiryNs(timeout_ns));
  return next;
}

nlohmann::json JobTable::StatusJson() const {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [id, job] : jobs_) out.push_back(job->StatusJson());
  return out;
}

void JobTable::RefreshGauges() {
  if (Counting(metrics_) == nullptr) return;
  AgentMetrics& m = *metrics_;
  std::map<std::string, Job::Gauges> by_label;
  std::map<uint64_t, double> shares;  // one pass over the scheduler's last sends for every job
  if (net_ != nullptr) shares = net_->scheduler()->RecentShares();
  for (auto& [id, job] : jobs_) job->AddGauges(shares, &by_label);
  for (const auto& [label, g] : by_label) {
    for (ipc::JobClass c : {ipc::JobClass::kHigh, ipc::JobClass::kNormal, ipc::JobClass::kLow}) {
      m.job_class->Get({label, std::string(ipc::JobClassName(c))})->Set(c == g.job_class);
    }
    m.job_class->Get({label, "weight"})->Set(g.weight);
    m.job_sched_sent_bytes->Get({label})->Set(g.sent_bytes);
    m.job_sched_wait->Get({label})->Set(g.wait_s);
    m.job_sched_queued->Get({label})->Set(g.queued);
    m.job_link_share->Get({label})->Set(g.share);
  }
}

nlohmann::json JobTable::FinishedJson() const {
  nlohmann::json out = nlohmann::json::array();
  for (const nlohmann::json& j : finished_) out.push_back(j);
  return out;
}

size_t JobTable::HandOver() {
  size_t moved = 0;
  for (auto& [id, job] : jobs_) moved += job->HandOver();
  return moved;
}

std::vector<HandOverRecord> JobTable::HandOverRecords() const {
  std::vector<HandOverRecord> out;
  uint64_t now = static_cast<uint64_t>(std::time(nullptr));
  for (const auto& [id, job] : jobs_) {
    if (std::optional<HandOverRecord> r = job->HandOverRecordOf()) {
      r->written_unix_s = now;
      out.push_back(std::move(*r));
    }
  }
  return out;
}

Status JobTable::ResumeFromRecord(const ClientIdentity& id, Job* job) {
  // Records live as long as a trainer may take to come back (the shim's reconnect window is far
  // shorter); an older one is from a restart long over.
  constexpr uint64_t kMaxAgeS = 600;
  Result<std::vector<HandOverRecord>> records =
      hand_over_path_.empty() ? std::vector<HandOverRecord>{}
                              : ReadHandOverRecords(hand_over_path_, kMaxAgeS);
  if (!records.ok()) return records.status();
  for (HandOverRecord& r : *records) {
    if (r.job_id != id.job_id || resumed_.count({r.job_id, r.written_unix_s}) != 0) continue;
    if (!TokensEqual(r.token, id.token))
      return PermissionDenied("job token differs from the one its previous agent handed over");
    resumed_.insert({r.job_id, r.written_unix_s});
    job->Resume(std::move(r));
    return Status::Ok();
  }
  return Unavailable("job '" + id.job_id +
                     "' spans nodes, and its previous agent left no hand-over of it here (" +
                     (hand_over_path_.empty() ? std::string("no socket") : hand_over_path_) +
                     "): the job cannot be resumed on this node; restart its trainers");
}

size_t JobTable::MovedOps() const {
  size_t n = 0;
  for (const auto& [id, job] : jobs_) n += job->moved_ops();
  return n;
}

size_t JobTable::HandOverRunning() {
  size_t n = 0;
  for (const auto& [id, job] : jobs_) n += job->HandOverRunning();
  return n;
}

size_t JobTable::PendingCount() const {
  size_t n = 0;
  for (const Job* job : active_) n += job->pending_count();
  return n;
}

}  // namespace outrider::agent
