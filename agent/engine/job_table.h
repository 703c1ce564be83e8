// All jobs of this agent, by job id; the network hands each job its peer messages through it.
// Per-pass work (Pump, ExpireOps, NextExpiryNs, PendingCount, Sweep) is proportional to the jobs
// that have something to do, not to the jobs that exist: idle communicators cost nothing.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "agent/engine/job.h"
#include "agent/membership/ports.h"
#include "agent/net/peer_events.h"

namespace outrider::agent {

namespace membership {
class Reformer;
}

// The job generations (agent/membership/) see the jobs through it (JobDirectory), and hear from it
// when ranks enter, leave, or find a node without ranks.
// Thread-safety: loop thread only.
class JobTable : public PeerEvents, public membership::JobDirectory {
 public:
  // How long a communicator that ended before all its local ranks joined is remembered: a rank
  // that joins it meanwhile is told it ended instead of waiting for ranks that left.
  static constexpr uint64_t kEndedCommMemoryNs = 60'000'000'000;
  static constexpr size_t kMaxEndedComms = 4096;

  // Finds or creates the job and admits the member.
  Status Join(Member* member);
  // Removes the member from its job; drops the job once it is empty. `orderly`: it said goodbye.
  void Leave(Member* member, const Status& why, bool orderly = false);
  Job* Find(const std::string& id);
  // The job generations told of ranks that enter and leave (not owned; null: none).
  void set_generations(membership::Reformer* generations) { generations_ = generations; }
  // JobDirectory: the jobs as the generations see them.
  std::optional<membership::GenerationInfo> Generation(const std::string& id) const override;
  std::optional<membership::GenerationInfo> LiveGeneration(const std::string& base) const override;
  void GiveUp(const std::string& id, const Status& why) override;
  Job* FindByHash(uint64_t hash);
  // PeerEvents: routed to the job with h.job_hash; a lost peer is reported to every job.
  RecvTarget RecvBuffer(const PeerHeader& h, size_t len) override;
  bool OnPeerMessage(const PeerHeader& h, const uint8_t* data, size_t len) override;
  void OnPeerLost(PeerId peer, const Status& why) override;
  // One step of deferred local work across the active jobs; jobs found idle leave the active set.
  bool Pump();
  // Drops jobs whose members all left once their last sends finished.
  void Sweep();
  void set_network(Network* net) { net_ = net; }
  // Where new jobs' ops on GPU memory go (null: refused). Not owned; outlives every job.
  void set_device_path(DevicePath* devices) { devices_ = devices; }
  // Where jobs count (not owned; may be null: nothing counted).
  void set_metrics(AgentMetrics* metrics) { metrics_ = metrics; }
  // How new multi-node jobs run their collectives.
  void set_engine_options(const EngineOptions& options) { engine_ = options; }
  void FailAll(const Status& why);
  void ExpireOps(uint64_t now_ns, uint64_t timeout_ns);
  uint64_t NextExpiryNs(uint64_t timeout_ns);
  size_t size() const { return jobs_.size(); }
  // Jobs that may have work (pending collectives, sends in flight, a rendezvous).
  size_t active_count() const { return active_.size(); }
  nlohmann::json StatusJson() const;
  // Sets the per-job gauges (class, the send scheduler's share and waits) of every job.
  void RefreshGauges();
  // The last kFinishedJobs jobs that ended here (not communicators), newest last: id,
  // generation, how they ended, when.
  static constexpr size_t kFinishedJobs = 64;
  nlohmann::json FinishedJson() const;
  size_t PendingCount() const;
  // The agent hands its jobs over (Job::HandOver, every job), and the instances still running
  // here that the hand-over waits for.
  size_t HandOver();  // the ops given back
  size_t HandOverRunning();
  // Ops the jobs gave back to their trainers for the next agent so far.
  size_t MovedOps() const;
  // What the jobs across nodes handed over leave for the next agent (engine/hand_over_record.h).
  std::vector<HandOverRecord> HandOverRecords() const;
  // Where a previous agent left its hand-over records: a client that comes back handed over
  // (ClientIdentity::handed_over) resumes its job across nodes from them. Empty: nowhere.
  void set_hand_over_path(std::string path) { hand_over_path_ = std::move(path); }

 private:
  using Jobs = std::map<std::string, std::unique_ptr<Job>>;
  Jobs::iterator Erase(Jobs::iterator it);
  // Drops the job if no member is left and nothing of it is in flight; else keeps it for Sweep.
  void DropIfDone(Jobs::iterator it);
  // Drops what is remembered of ended communicators past kEndedCommMemoryNs or kMaxEndedComms.
  void ForgetEndedComms(uint64_t now_ns);
  // Why `member` may not join communicator `id`: it ended before this rank joined it.
  Status EndedBeforeJoin(const ClientIdentity& id, uint64_t now_ns);
  // The newest generation of job `base` with members here (not a communicator), or null.
  Job* LiveJob(const std::string& base) const;

  Jobs jobs_;
  std::unordered_map<uint64_t, Job*> by_hash_;  // every job in jobs_, by Job::hash()
  std::unordered_set<Job*> active_;             // jobs marked active and not found idle since
  std::unordered_set<std::string> emptied_;     // jobs left without members while still busy
  // Communicators that ended before every local rank joined, oldest first.
  struct EndedComm {
    uint64_t ended_ns = 0;
    std::vector<bool> joined;  // by local rank
    std::string why;
  };
  std::map<std::string, EndedComm> ended_comms_;
  std::deque<std::pair<uint64_t, std::string>> ended_order_;  // (ended_ns, id)
  Network* net_ = nullptr;                                    // Not owned.
  DevicePath* devices_ = nullptr;                             // Not owned.
  AgentMetrics* metrics_ = nullptr;                           // Not owned.
  EngineOptions engine_;
  std::deque<nlohmann::json> finished_;          // at most kFinishedJobs
  membership::Reformer* generations_ = nullptr;  // Not owned.
  std::string hand_over_path_;
  // Records taken already, by (job id, written_unix_s): each resumes one job once.
  std::set<std::pair<std::string, uint64_t>> resumed_;
  // A new job across nodes of a client that comes back handed over: its record, or why not.
  Status ResumeFromRecord(const ClientIdentity& id, Job* job);
};

}  // namespace outrider::agent
