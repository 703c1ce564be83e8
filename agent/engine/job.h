// A job: the local clients of one training run on this node. Matches their submissions into
// collective instances by (key, per-key sequence number), checks that every rank agrees on the
// op's shape, and runs the instance once every local rank has submitted: on this node alone, or
// through the job's node group when it spans nodes.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "agent/bootstrap/rendezvous.h"
#include "agent/engine/dataplane/host_data_plane.h"
#include "agent/engine/device_path.h"
#include "agent/engine/flight_recorder.h"
#include "agent/engine/hand_over_record.h"
#include "agent/engine/job_hand_over.h"
#include "agent/engine/member.h"
#include "agent/engine/node_group.h"
#include "agent/engine/op.h"
#include "agent/engine/point_to_point.h"
#include "agent/net/peer_protocol.h"
#include "agent/observability.h"
#include "base/status.h"
#include "metrics/registry.h"

namespace outrider::agent {

class Network;

// One class in one file (job.cc, ~730 lines): membership, matching, the job across nodes and what
// it reports all read and change the same pending instances and members, and every failure path
// (a member leaving, a node lost, an op timing out) and the hand-over to the next agent must see
// all of them at once. What separates
// cleanly is apart: the node group, the device side, the flight recorder, the data plane.
// Thread-safety: loop thread only.
class Job {
 public:
  // `net` may be null (no agent port): then only single-node jobs are possible.
  // `node_ranks`: ranks per node where they differ (ClientIdentity::node_ranks); empty: every
  // node runs local_size. `devices` (not owned, outlives the job; may be null: its ops on GPU
  // memory are refused) makes the job's device side.
  Job(std::string id, int world_size, int local_size, Network* net,
      const EngineOptions& engine = {}, const std::vector<int32_t>& node_ranks = {},
      DevicePath* devices = nullptr, AgentMetrics* metrics = nullptr);
  ~Job();
  uint64_t hash() const { return hash_; }
  // Sends of this job are still in flight (its clients' memory must stay mapped), or its
  // rendezvous is (the other nodes may already wait for this node: once it completes, they hear
  // how the job ended here instead of waiting for a node that vanished).
  bool busy() const;

  const std::string& id() const { return id_; }
  // The job as its trainers name it, and this job's generation of it (member.h).
  const std::string& base_id() const { return base_id_; }
  uint32_t generation() const { return generation_; }
  int local_size() const { return local_size_; }
  // Which ranks run on which node.
  const RankLayout& ranks() const { return ranks_; }
  int world_size() const { return world_size_; }
  const std::string& token() const { return token_; }
  // Across nodes: this node's rank, the node count, and where each node's agent listens ("" where
  // not known: single-node jobs, or before the rendezvous completed).
  int node_rank() const { return group_ != nullptr ? group_->node_rank() : 0; }
  int num_nodes() const { return group_ != nullptr ? group_->num_nodes() : 1; }
  const std::vector<std::string>& agent_addrs() const { return agent_addrs_; }
  // Node `node` has no member of this job left: its ranks left, or its agent is lost.
  bool node_gone(int node) const {
    return node >= 0 && static_cast<size_t>(node) < gone_nodes_.size() &&
           gone_nodes_[static_cast<size_t>(node)];
  }
  // The job's local members (null where a local rank is not connected).
  const std::vector<Member*>& members() const { return members_; }
  // `on_gone` runs when another node is found to have no member left (see node_gone).
  void set_on_node_gone(std::function<void()> on_gone) { on_node_gone_ = std::move(on_gone); }
  // A communicator of a job (its members came through kCommCreate), not a job of its own.
  bool comm() const { return comm_; }
  // Whether local rank `r` was ever a member, and why the job cannot go on (OK while it can).
  bool ever_joined(int local_rank) const { return joined_[static_cast<size_t>(local_rank)]; }
  bool every_rank_joined() const;
  const Status& lost() const { return lost_; }
  // Why the job failed here (OK if its ranks all left in order).
  const Status& failed() const { return failed_; }

  // Activity: `on_active` runs when the job may have work for Pump, ExpireOps or NextExpiryNs (a
  // collective came, a rendezvous or the NCCL path started, a peer message arrived) and it was not
  // marked active already; the owner calls ClearActive once it found the job idle (no pending
  // collective, not busy). Jobs never marked may be skipped by the owner's loops.
  void set_on_active(std::function<void()> on_active) { on_active_ = std::move(on_active); }
  void ClearActive() { active_ = false; }
  size_t member_count() const;
  size_t pending_count() const { return pending_.size(); }

  // Admits a client as its local rank. Fails if the rank is taken, the sizes disagree with the
  // job's, or the job already lost a member.
  Status AddMember(Member* member);
  // Removes a client (gone or closed). Every pending collective fails on the other members with
  // `why`, and so does every later one: the job cannot complete a collective without it. Unless it
  // left in order (it said goodbye) with nothing unfinished, the other nodes fail the job at once
  // too.
  void RemoveMember(Member* member, const Status& why, bool orderly = false);
  // Takes one validated submission from a member.
  void Submit(Member* member, const ValidatedOp& op);
  // An op of a member that was refused before it reached the job (its entry was invalid, its
  // fence never came, its inputs could not be copied in): it still takes its place in the key's
  // sequence, so that the rank's next op of the key pairs with the other ranks' next one, and
  // the instance fails on every rank of every node, naming the rank and `why`. The member's own
  // op completes with `why`.
  struct RefusedOp {
    uint64_t key = 0;
    uint64_t op_id = 0;
    ipc::OpKind kind{};  // as the entry said (for the flight recorder; may be invalid)
    ipc::DType dtype{};
    uint64_t count = 0;  // elements (alltoallv: send bytes), as the flight recorder shows ops
    // What the flight recorder shows of a validated op.
    static RefusedOp Of(const ValidatedOp& op) {
      return RefusedOp{.key = op.key,
                       .op_id = op.op_id,
                       .kind = op.kind,
                       .dtype = op.dtype,
                       .count = op.kind == ipc::OpKind::kAlltoallv ? op.send.length : op.count};
    }
  };
  void Refuse(Member* member, const RefusedOp& op, const Status& why);
  // Its device side, made on first use (an op on GPU memory, or node 0's message for it: a job on
  // host memory alone never has one): where its ranks keep GPU buffers, and so where each GPU op
  // runs (RouteOf). Null without a device path.
  JobDevice* device();
  // Fails every pending collective, the node group's first (agent shutdown, a lost member), and
  // with `points` every send and receive.
  void FailAll(const Status& why, bool points = true);
  // The agent hands its jobs over to the next one (docs/operations.md). A job on one node gives
  // every op of an instance that has not started back to its rank (Member::Moved), now and as
  // more come, so that they run at the next agent; started instances finish here. A job across
  // nodes (generation 0, host memory, no other node handing over) agrees a stop point with its
  // other nodes (JobHandOver): instances below it finish everywhere, ops past it go back to this
  // node's ranks, and the other nodes hold theirs until the next agent is back. Other jobs across
  // nodes are left as they are: they fail when the agent stops.
  // Returns how many ops it gave back now.
  size_t HandOver();
  // What a hand-over still waits for here: instances running (one node), or this node's part
  // not yet done (across nodes). Finishes that part when it can.
  size_t HandOverRunning();
  // The next agent: the job resumes where its previous agent handed it over (`record`), in the
  // same generation with the same ranks. Before its first member joins.
  void Resume(HandOverRecord record) { resume_ = std::move(record); }
  // The previous agent: what the next one needs, once this node's part is handed over.
  std::optional<HandOverRecord> HandOverRecordOf() const;
  // Ops given back to their trainers for the next agent so far.
  size_t moved_ops() const { return moved_ops_; }
  // The job cannot go on (`why`: a rank it expects will never come), here and on every node.
  void GiveUp(const Status& why);
  // A message from another node's agent for this job.
  void OnPeerMessage(const PeerHeader& h, const uint8_t* data, size_t len);
  // One step of deferred local work. True if it did any.
  bool Pump();
  // Where a large payload for this job should land (nullptr: anywhere).
  RecvTarget RecvBuffer(const PeerHeader& h, size_t len);
  // The agent of another node is gone: the job fails if it used it, here and (told at once, as the
  // lost node may still be reachable from them) on its other nodes.
  void OnPeerLost(PeerId peer, const Status& why);
  // Fails collectives that have waited longer than `timeout_ns` for some rank, on every node.
  // Amortized O(1) per call beyond the instances it expires or finds settled.
  void ExpireOps(uint64_t now_ns, uint64_t timeout_ns);
  // Earliest time a pending collective would expire, or UINT64_MAX. Amortized O(1).
  uint64_t NextExpiryNs(uint64_t timeout_ns);
  // For /status: membership, nodes, class, its chunks in the send scheduler, pending
  // collectives and the flight recorder.
  nlohmann::json StatusJson() const;
  // What the job's per-job gauges show, added up over the jobs that share its label (its
  // generations and communicators).
  struct Gauges {
    ipc::JobClass job_class = ipc::JobClass::kNormal;
    uint32_t weight = 1;
    double sent_bytes = 0, wait_s = 0, queued = 0, share = 0;
  };
  // `shares`: the send scheduler's RecentShares().
  void AddGauges(const std::map<uint64_t, double>& shares, std::map<std::string, Gauges>* by_label);

 private:
  struct Pending {
    std::vector<std::optional<ValidatedOp>> ops;  // by local rank
    std::vector<uint64_t> op_ids;                 // by local rank, 0 if not arrived or completed
    int arrived = 0;
    uint64_t first_ns = 0;
    Status failed;                 // set on mismatch: later arrivals fail at once
    int32_t default_priority = 0;  // without trainer hints: later in the iteration = sooner
  };
  using InstanceId = std::pair<uint64_t, uint64_t>;  // (key, seq)

  Status CheckAgreement(const Pending& p, int rank, const ValidatedOp& op, uint64_t key,
                        uint64_t seq) const;
  // One op of a member takes the key's next sequence number and joins (or opens) its instance:
  // `op` when it was accepted, else the refusal `refused` (with `why`).
  void Arrive(Member* member, const ValidatedOp* op, const RefusedOp& refused, const Status& why);
  // How a local rank is named in errors: multi-node jobs name job ranks (the error reaches every
  // node), single-node ones local ranks.
  std::string RankName(int local_rank) const;
  void Run(InstanceId id, Pending& p);
  // Completes every member's op of the instance with its own status (`reports` by local rank, or
  // null), accounts it and forgets the instance.
  using PendingMap = std::map<InstanceId, Pending>;
  void Finish(PendingMap::iterator it, const Status& st, std::string_view algo,
              const std::vector<OpReport>* reports, const OpTrace* trace = nullptr);
  // Fails the members' ops of an instance that stays (as a tombstone or until erased).
  void Fail(Pending& p, const Status& why, uint64_t seq);
  // Gives every local rank's op of each instance `which` picks back to its rank (Member::Moved)
  // and forgets the instance; returns how many ops.
  size_t GiveBack(const std::function<bool(const InstanceId&, const Pending&)>& which);
  // The job's device side (not null), about to run GPU work (its NCCL communicators start on
  // first use): the owner must pump the job from now on.
  JobDevice* ActiveDevice() {
    JobDevice* d = device();
    if (!d->started()) MarkActive();
    return d;
  }
  void OnDeviceMessage(const PeerHeader& h, const uint8_t* data, size_t len);
  // Sets up the inter-node group and starts the rendezvous (first member of a multi-node job).
  Status StartNetwork(const Member* first);
  void OnRendezvous(Result<NodeTable> table);
  // How the job ended here: it failed (instances left half done); its ranks left in order after
  // an op failed (every instance they contributed to finished; the cause is named to the other
  // nodes); or they left in order.
  enum class Ending { kFailed, kLeftAfterFailure, kLeft };
  // The job cannot go on (`why`).
  void Lose(const Status& why, Ending how = Ending::kFailed);
  // Some collective has not finished here (and has not failed everywhere already).
  bool Unfinished() const;
  // Metrics for one rank's finished op; `algo` (a string with static storage) names how it crossed
  // nodes.
  void Account(const ValidatedOp& op, const Status& st, uint64_t elapsed_ns, std::string_view algo);

  // The job's point-to-point messages on this node, made on first use.
  PointToPoint& Points();
  void OnPointMessage(const PeerHeader& h, const uint8_t* data, size_t len);

  // Tells the owner (once until ClearActive) that the job may have work.
  void MarkActive() {
    if (!active_ && on_active_) {
      active_ = true;
      on_active_();
    }
  }

  void MarkNodeGone(int node);

  // ---- The hand-over across nodes (job_hand_over.h) ----
  // Node `leaving` hands over: this node stops starting instances and says where it stands.
  void BeginHandOver(int leaving);
  void OnHandOverMessage(const PeerHeader& h, const uint8_t* data, size_t len);
  void OnStopKnown();
  // The leaving node: once everything below the stop point finished here, tells the others and
  // its ranks, and says nothing more to the peers.
  void MaybeFinishHandOver();
  // The next agent: connects to the other nodes and tells them it is back.
  Status ResumeNetwork();
  // Starts the held instances that may start now (in (key, seq) order).
  void RunHeld();
  // From Pump: connects to the next agent that said it is back (back_address_), and welcomes it
  // (or, where the job failed meanwhile, tells it so).
  void TakeBack();
  uint64_t HandOverWaitNs() const;

  std::string id_;
  std::string base_id_;
  uint32_t generation_ = 0;
  std::vector<std::string> agent_addrs_;  // by node, from the rendezvous
  std::vector<bool> gone_nodes_;          // by node
  std::function<void()> on_node_gone_;
  bool comm_ = false;         // set by the first member
  std::vector<bool> joined_;  // by local rank: was ever a member
  std::function<void()> on_active_;
  bool active_ = false;
  int world_size_;
  int local_size_;
  RankLayout ranks_;
  std::vector<Member*> members_;  // Not owned; a member leaves through RemoveMember first.
  ipc::GpuMode gpu_mode_ = ipc::GpuMode::kStaging;    // its members', set by the first to join
  ipc::JobClass job_class_ = ipc::JobClass::kNormal;  // the same
  uint32_t job_weight_ = 1;
  std::vector<std::unordered_map<uint64_t, uint64_t>> next_seq_;  // per local rank: key -> seq
  PendingMap pending_;
  // Instances in the order they were created (so by first_ns), while some rank may still be
  // missing; settled ones are dropped from the front lazily.
  std::deque<InstanceId> arrival_;
  bool handing_over_ = false;  // HandOver ran (one node): every op that comes is moved
  // Across nodes: a hand-over in progress, the instances it holds (every local rank in, not
  // started), per key one past the highest sequence number started here, what the next agent
  // resumes from, and whether this node's part is handed over.
  std::optional<JobHandOver> hand_over_;
  std::vector<std::pair<uint64_t, uint64_t>> held_;
  std::map<uint64_t, uint64_t> started_next_;
  std::optional<HandOverRecord> resume_;
  bool handed_over_here_ = false;
  bool abandoned_hand_over_ = false;  // this node's hand-over found no agreement in time
  size_t moved_ops_ = 0;
  std::optional<std::string> back_address_;  // a next agent's transport, for TakeBack
  int back_node_ = -1;                       // its node, where the job failed here
  std::vector<std::string> transports_;      // by node, from the rendezvous: the agents' transports
  // The front of arrival_ still waiting for a rank, or null (dropping what settled).
  Pending* OldestWaiting();
  Status lost_;  // set once a member left
  Status
      first_failure_;  // the first op of the job that failed here (named when a rank then leaves)
  Status failed_;      // why the job failed here, if it did (a clean departure leaves it OK)
  bool gave_up_ = false;  // ... with instances half done (Ending::kFailed)
  int lost_node_ = -1;    // the peer node whose loss failed the job, if that was the cause
  Network* net_;          // Not owned; outlives every job. Null without an agent port.
  EngineOptions engine_;
  uint64_t hash_;
  std::string token_;
  HostDataPlane host_plane_;  // moves the bytes of its collectives in host memory; outlives group_
  DevicePath* devices_;       // Not owned; may be null.
  AgentMetrics* metrics_;     // Not owned; may be null: nothing counted.
  // Outlives group_, whose instances name it.
  std::unique_ptr<JobDevice> device_;
  std::unique_ptr<PointToPoint> points_;  // sends and receives; before group_, which calls it
  std::unique_ptr<NodeGroup> group_;      // multi-node jobs only
  std::unique_ptr<RendezvousClient> rdv_client_;  // non-root nodes, until the table arrives
  bool in_rendezvous_ = false;                    // from StartNetwork until OnRendezvous
  std::vector<InstanceId> waiting_for_network_;   // complete locally, group not ready yet
  FlightRecorder recorder_;
  std::unordered_set<uint64_t> iteration_keys_;  // keys seen in the current iteration
  int32_t iteration_index_ = 0;
  // The send scheduler of this agent's network, or null.
  const SendScheduler* scheduler() const;
  std::string job_label_;             // metrics label: set by MetricsLabel()
  const std::string& MetricsLabel();  // only with metrics
  // By (algo << 16 | kind << 8 | code); algo labels are static strings, so their address names
  // them.
  std::unordered_map<uint64_t, metrics::Counter*> op_counters_;
};

}  // namespace outrider::agent
