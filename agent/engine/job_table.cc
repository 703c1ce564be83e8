// The agent's jobs.
#include "agent/engine/job_table.h"

namespace outrider::agent {

Status JobTable::Join(Member* member) {
  const ClientIdentity& id = member->identity();
  auto it = jobs_.find(id.job_id);
  if (it == jobs_.end()) {
    it = jobs_.emplace(id.job_id, std::make_unique<Job>(id.job_id, id.world_size, id.local_world_size, net_, engine_)).first;
  }
  Status st = it->second->AddMember(member);
  if (!st.ok() && it->second->member_count() == 0 && !it->second->busy()) jobs_.erase(it);
  return st;
}

void JobTable::Leave(Member* member, const Status& why, bool orderly) {
  auto it = jobs_.find(member->identity().job_id);
  if (it == jobs_.end()) return;
  it->second->RemoveMember(member, why, orderly);
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
  for (auto& [id, job] : jobs_) job->ExpireOps(now_ns, timeout_ns);
}

uint64_t JobTable::NextExpiryNs(uint64_t timeout_ns) {
  uint64_t next = UINT64_MAX;
  for (auto& [id, job] : jobs_) next = std::min(next, job->NextExpiryNs(timeout_ns));
  return next;
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
