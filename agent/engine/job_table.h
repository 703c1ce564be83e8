// All jobs of this agent, by job id; the network hands each job its peer messages through it.
#pragma once

#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "agent/engine/job.h"
#include "agent/net/peer_events.h"

namespace outrider::agent {

// Thread-safety: loop thread only.
class JobTable : public PeerEvents {
 public:
  // Finds or creates the job and admits the member.
  Status Join(Member* member);
  // Removes the member from its job; drops the job once it is empty. `orderly`: it said goodbye.
  void Leave(Member* member, const Status& why, bool orderly = false);
  Job* Find(const std::string& id);
  Job* FindByHash(uint64_t hash);
  // PeerEvents: routed to the job with h.job_hash; a lost peer is reported to every job.
  RecvTarget RecvBuffer(const PeerHeader& h, size_t len) override;
  bool OnPeerMessage(const PeerHeader& h, const uint8_t* data, size_t len) override;
  void OnPeerLost(PeerId peer, const Status& why) override;
  // One step of deferred local work across jobs.
  bool Pump();
  // Drops jobs whose members all left once their last sends finished.
  void Sweep();
  void set_network(Network* net) { net_ = net; }
  // How new multi-node jobs run their collectives.
  void set_engine_options(const EngineOptions& options) { engine_ = options; }
  void FailAll(const Status& why);
  void ExpireOps(uint64_t now_ns, uint64_t timeout_ns);
  uint64_t NextExpiryNs(uint64_t timeout_ns);
  size_t size() const { return jobs_.size(); }
  nlohmann::json StatusJson() const;
  size_t PendingCount() const;

 private:
  std::map<std::string, std::unique_ptr<Job>> jobs_;
  Network* net_ = nullptr;  // Not owned.
  EngineOptions engine_;
};

}  // namespace outrider::agent
