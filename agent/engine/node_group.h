// The inter-node half of a job's collectives: this node's agent, after its local clients have all
// submitted an instance, exchanges the node's share with the other nodes' agents. The group keeps
// the table of instances, routes peer messages to them, checks that every node sent the same
// fingerprint (nodes that disagree fail the instance on every rank), hands the data movement to
// the instance's algorithm (agent/engine/algorithms/), paces bulk sends through the scheduler,
// and fails what a departed node can no longer complete.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "agent/engine/algorithm.h"
#include "agent/engine/algorithms/sparse_exchange.h"
#include "agent/engine/collective.h"
#include "agent/engine/dataplane/data_plane.h"
#include "agent/engine/device_path.h"
#include "agent/engine/engine_options.h"
#include "agent/engine/op_report.h"
#include "agent/net/peer_protocol.h"
#include "agent/sched/send_scheduler.h"
#include "agent/transport/transport.h"
#include "metrics/registry.h"

namespace outrider::agent {

class AgentMetrics;

// One class in one file (node_group.cc, ~650 lines): instances, their sends and nodes leaving share
// the instance map and the per-node message counts that decide when a node's departure takes
// effect (a node's goodbye applies only once everything it sent before has arrived). The
// algorithms, the send scheduler and the data plane are apart.
// Thread-safety: loop thread only.
class NodeGroup : private CollectiveLinks, public DeviceLinks {
 public:
  // `algo`: the metrics label of the algorithm that ran; `reports` (sparse ops; else null): per
  // local rank, its own status when `result` is ok. `trace`: where the instance's time went here.
  using Done =
      std::function<void(uint64_t key, uint64_t seq, const Status& result, std::string_view algo,
                         const std::vector<OpReport>* reports, const OpTrace& trace)>;
  // Sparse allreduce with row demand: the demanded rows are in every local client's output;
  // `reports` by local rank (a rank whose output is too small has a failed status and gets no
  // early notice). The instance's Done follows.
  using Partial =
      std::function<void(uint64_t key, uint64_t seq, const std::vector<OpReport>& reports)>;

  // `data` (not owned) moves the bytes; it outlives the group.
  NodeGroup(Topology topo, uint64_t job_hash, uint64_t self_hash, Transport* transport,
            DataPlane* data, Done done, EngineOptions options = {});
  ~NodeGroup() override;

  int num_nodes() const { return topo_.nodes; }
  int node_rank() const override { return topo_.me; }
  const Topology& topology() const { return topo_; }
  bool ready() const { return !peers_.empty(); }
  // Some send or data movement still uses client memory or instance buffers.
  bool busy() const;
  // Instances held: running, finishing their sends, or kept only to drop late messages for them.
  size_t instance_count() const { return instances_.size(); }
  // Some instance has not finished here: running, or started by other nodes and not (yet) by this
  // one's ranks.
  bool unfinished() const;
  // Peers by node rank (this node's entry is unused). Makes the group ready.
  void SetPeers(std::vector<PeerId> peers);
  const std::vector<PeerId>& peers() const { return peers_; }
  // Node whose agent is `peer`, or -1.
  int NodeOfPeer(PeerId peer) const;
  std::string DescribeNode(int node) const { return topo_.DescribeNode(node); }

  // Every local rank submitted instance (key, seq); `ops` by local rank, valid until Done.
  // `priority` orders this instance's bulk sends (lower = sooner).
  void Start(uint64_t key, uint64_t seq, const std::vector<const ValidatedOp*>& ops,
             int32_t priority = 0);
  void set_partial(Partial partial) { sparse_.partial = std::move(partial); }
  // Where the group counts its wire bytes and its sparse exchanges their density (not owned; may
  // be null, and is when metrics are off: nothing counted).
  void set_metrics(AgentMetrics* metrics) {
    metrics_ = metrics;
    sparse_.metrics = metrics;
  }
  // Node `node` says the job failed there for a reason of its own (`why`, naming the cause).
  using Failed = std::function<void(int node, const Status& why)>;
  void set_failed(Failed failed) { failed_ = std::move(failed); }
  // The job's device side (engine/device_path.h; not owned, outlives the group's instances), once
  // it has one: instances on GPU memory run through it, and it is pumped with the group.
  void set_device(JobDevice* device) { deps_.device = device; }
  // Node 0's messages for the job's device side (kNcclId, kNcclTicket) go to `on_message`.
  using DeviceMessage = std::function<void(const PeerHeader& h, const uint8_t* data, size_t len)>;
  void set_device_message(DeviceMessage on_message) { device_message_ = std::move(on_message); }
  // Point-to-point messages (engine/point_to_point.h): `h`'s point-to-point fields are set, the
  // group fills in the rest. A kPoint goes at once on the express lane, a kPointChunk through the
  // scheduler at `priority`. `done` runs once it left or failed; `keep` is held until then. Until
  // then the job's chunks of a lower priority yield to it (SendScheduler::BeginOp), as to a
  // running collective.
  void SendPoint(int node, const PeerHeader& h, const BufferSpan& payload, int32_t priority,
                 std::shared_ptr<const void> keep, std::function<void(const Status&)> done);
  // Node `node`'s ranks left in order (`why`), and everything it sent has arrived.
  void set_node_left(Failed on_left) { node_left_ = std::move(on_left); }
  // Point-to-point messages from other nodes go to `on_message`.
  void set_point_message(DeviceMessage on_message) { point_message_ = std::move(on_message); }
  // Sends a job-level control message to every other node at once (ahead of bulk chunks).
  void SendToOthers(PeerMsg type, uint64_t key, uint64_t seq, std::string payload) override;
  // The job's hand-over across nodes (engine/job_hand_over.h): a kHandOver of `step` about node
  // `leaving`, to every other node; those that come go to `on_message`.
  void SendHandOver(uint64_t step, int leaving, std::string payload);
  // Some kHandOver is still on its way out (an agent that leaves waits for its last word).
  bool hand_over_sending() const { return *hand_over_sends_ != 0; }
  // Tells node `node` alone that the job failed here (a node's next agent, back after the job
  // failed without it).
  void SayJobFailedTo(int node, const Status& why);
  void set_hand_over_message(DeviceMessage on_message) {
    hand_over_message_ = std::move(on_message);
  }
  // Node `node` runs at another agent now (`peer`), which starts its count of messages afresh.
  void ReplacePeer(int node, PeerId peer);
  // This node handed its part of the job over: the group says nothing more to its peers (no
  // goodbye, failure or abort: the next agent goes on in its place).
  void Detach() { detached_ = true; }
  bool detached() const { return detached_; }
  // Bulk sends of every instance go through `scheduler` (may be null: sent at once), as the job's
  // class and weight. `job`: the hash of the job as its trainers name it, which every communicator
  // of the job shares in the scheduler (one urgency across them); the group's own statistics are
  // by its job_hash (0: the group is the whole job).
  void set_scheduler(SendScheduler* scheduler, ipc::JobClass job_class, uint32_t weight,
                     uint64_t job = 0) {
    scheduler_ = scheduler;
    flow_ = {job != 0 ? job : job_hash_, job_class, weight, job_hash_};
  }
  void OnMessage(const PeerHeader& h, const uint8_t* data, size_t len);
  uint64_t ChunkCap(int node) const override;
  // This node failed instance (key, seq) before starting it (its ranks disagree among themselves,
  // or some never submitted it in time): every other node fails it with `why` too (sent once the
  // peers are known).
  void Abort(uint64_t key, uint64_t seq, const Status& why);
  // Where a large chunk should land so it needs no copy (a null target: anywhere), with the
  // regions of the instance's ops as its keep-alive: the chunk may still be landing after the
  // instance has failed and its clients have released the memory.
  RecvTarget RecvBuffer(const PeerHeader& h, size_t len);
  // One slice of deferred local work (large allreduces reduce their local inputs slice by slice,
  // overlapped with the ring). True if it did any.
  bool Pump();
  // What a running instance waits for ("contributions of ranks 4-7 (node 1)", "3 ring chunks",
  // "sends to finish"), or "" if it is not known here.
  std::string WaitingFor(uint64_t key, uint64_t seq) const;
  // Fails every instance (started ones through Done) and forgets buffered messages.
  void FailAll(const Status& why);
  // Tells every peer at once (ahead of queued bulk data) that the job failed here for a reason of
  // its own, so they fail it too instead of waiting for what this node will never send. Sent once
  // the peers are known if they are not yet. `lost_node` (>= 0), a node this one lost, is not told.
  // A peer that hears it fails the job without telling anyone in turn.
  void SayJobFailed(const Status& why, int lost_node = -1);
  // Tells every peer that this node's clients left the job; `lost_node` >= 0 says the job failed
  // here because that node was lost, so the peers can name the real cause; `failed` says why the
  // job failed here, if it did. `gave_up`: it failed with instances half done, and the peers fail
  // every one they still run (this departure may reach them ahead of the failure's own message).
  // Without it the clients left in order, after `failed` if set: every instance this node
  // contributed to, it finished, and the peers fail only those still missing its contribution
  // (naming `failed`, the cause, if set).
  void SayJobLeft(int lost_node = -1, const Status& failed = Status::Ok(), bool gave_up = false);

 private:
  using Instances = std::map<std::pair<uint64_t, uint64_t>, Collective>;

  // CollectiveLinks.
  void Send(Collective& c, int node, const SendArgs& args, const BufferSpan& payload) override;
  void Complete(Collective& c, const Status& result) override;

  Collective& Get(uint64_t key, uint64_t seq);
  // (key, seq) finished here and was forgotten: a message for it comes too late to matter.
  bool Finished(uint64_t key, uint64_t seq) const;
  // Finishes the instance here. `tell_others`: a failure is sent to every other node too
  // (CollectiveLinks::Complete); without, it is one every node learns by itself (a departure,
  // another node's abort, a job-wide failure, fingerprints that disagree).
  void Finish(Collective& c, const Status& st, bool tell_others = false);
  void SayFailed(Collective& c, const Status& why);
  // Why an instance cannot complete once `node` left.
  Status LeftWhy(int node) const;
  // The node left the job after it failed there (it left instances half done).
  bool GaveUp(size_t node) const;
  PeerHeader Header(PeerMsg type, uint64_t key, uint64_t seq) const;
  // The lane of what goes to peers unscheduled (fingerprints, aborts, goodbyes).
  Lane ControlLane() const {
    return scheduler_ != nullptr ? scheduler_->control_lane() : Lane::kBulk;
  }
  // Hands one message to the transport on `lane` (or drops it if its instance failed meanwhile).
  // `keep` owns the payload (or is null) and is held until the transport is done with it.
  void Issue(int node, Lane lane, const PeerHeader& h, const BufferSpan& payload, bool scheduled,
             std::shared_ptr<const void> keep);
  // Queues a bulk chunk in the scheduler, as the job's, at `priority`.
  void Schedule(Collective& c, int node, const PeerHeader& h, const BufferSpan& payload,
                int32_t priority, std::shared_ptr<const void> keep);
  // The scheduler released the chunk: Issue, or its first piece if the chunk is now too large.
  void IssueScheduled(int node, const PeerHeader& h, const BufferSpan& payload, int32_t priority,
                      const std::shared_ptr<const void>& keep);
  void SendDone(uint64_t key, uint64_t seq, const PeerHeader& h, const Status& s);
  void SendContributions(Collective& c);
  void MaybeAgree(Collective& c);
  void HandleMessage(const PeerHeader& h, const uint8_t* data, size_t len);
  void ApplyLeft(int node);
  void SendAborts();
  void Notify(Collective& c);
  // Adds to the job's counters of bytes to and from peers (headers included).
  void CountBytes(uint64_t sent, uint64_t received);
  // While some instance runs here (started by this node's ranks, not finished), the job's class
  // counts as running on every link to its peers: lower classes yield there.
  void MarkRunning();
  // Counts `c` as running here (its start) or no more (its end), in running_ and with the
  // scheduler, whose lower priorities of the job yield to it meanwhile.
  void SetRunning(const Collective& c, bool running);
  // Forgets a finished instance whose sends and data movement are done.
  void MaybeErase(uint64_t key, uint64_t seq);
  // Destroys an instance, or keeps it until the outermost Scope closes.
  void Retire(Instances::iterator it);

  // Every way into the group (a public call, a transport or scheduler callback) holds a Scope. An
  // instance forgotten while one is open is destroyed only when the outermost one closes: its
  // algorithm may have finished it from deep inside its own frames, which must not outlive it.
  class Scope {
   public:
    explicit Scope(NodeGroup* g) : g_(g) { ++g_->depth_; }
    ~Scope() {
      if (--g_->depth_ == 0) g_->retired_.clear();
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    NodeGroup* g_;
  };

  Topology topo_;
  uint64_t job_hash_;
  uint64_t self_hash_;
  Transport* transport_;                // Not owned; outlives the group.
  SendScheduler* scheduler_ = nullptr;  // Not owned; outlives the group (the Network's).
  SendScheduler::Flow flow_;            // the job's, for its chunks
  Done done_;
  Failed failed_;
  DeviceMessage device_message_;
  DeviceMessage hand_over_message_;
  DeviceMessage point_message_;
  Failed node_left_;
  size_t point_sends_ = 0;  // SendPoint's messages not done
  // kHandOver sends not yet done; shared with their callbacks, which may outlive the group.
  std::shared_ptr<size_t> hand_over_sends_ = std::make_shared<size_t>(0);
  // By node: kHandOver messages that came before something their sender sent ahead of them
  // (PeerHeader::sent_before), held until it has.
  struct HeldHandOver {
    PeerHeader h;
    std::string data;
  };
  std::vector<std::deque<HeldHandOver>> hand_over_held_;
  std::vector<uint64_t> sender_of_;  // by node: the agent its messages come from (0: none yet)
  bool detached_ = false;
  EngineOptions options_;
  SparseShared sparse_;
  AlgorithmDeps deps_;
  std::vector<std::tuple<uint64_t, uint64_t, Status>> aborts_;  // until the peers are known
  std::string failure_;     // SayJobFailed's reason, until the peers are known
  int failure_skips_ = -1;  // ... and the node it does not go to
  std::vector<PeerId> peers_;
  Instances instances_;
  int running_ = 0;              // instances started here and not finished
  bool marked_running_ = false;  // ... told to the scheduler, on every peer's link
  // Per key: every seq below it finished here and was forgotten (later ones that finished first
  // stay as `forgotten` entries until then). Invariant: no instance of the key below it.
  std::unordered_map<uint64_t, uint64_t> finished_below_;
  int depth_ = 0;
  std::vector<decltype(instances_)::node_type>
      retired_;  // forgotten, destroyed when depth_ drops to 0
  // Messages sent to / delivered from each node. A JobLeft carries the sender's count, so it is
  // acted on only after everything the node sent before it has been delivered (rendezvous
  // payloads can overtake each other).
  std::vector<uint64_t> sent_to_;
  std::vector<uint64_t> received_from_;
  std::vector<int64_t> left_after_;  // -1: the node has not left
  std::vector<bool> left_;
  std::vector<int> left_cause_;      // node whose loss made the leaving node give up, or -1
  std::vector<Status> left_failed_;  // why the job failed at the leaving node, if it did
  std::vector<bool> left_gave_up_;   // ... with instances half done
  AgentMetrics* metrics_ = nullptr;
  metrics::Counter* bytes_sent_ = nullptr;  // created on first use; owned by the registry
  metrics::Counter* bytes_recv_ = nullptr;
};

}  // namespace outrider::agent
