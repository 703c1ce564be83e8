// The inter-node half of a job's collectives: this node's agent, after reducing or gathering
// its local clients' buffers, exchanges the node's share with the other nodes' agents.
// Every instance starts with each node sending its fingerprint (with the data itself for direct
// algorithms) to every other node; nodes that disagree fail the instance on every rank. Large
// allreduces then run a chunked, pipelined ring reduce-scatter + allgather; the rest exchange
// directly. Reduction order is fixed by node order, so every rank gets bitwise identical results.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "agent/control/entry_validator.h"
#include "agent/engine/op_report.h"
#include "agent/engine/peer_protocol.h"
#include "agent/sched/send_scheduler.h"
#include "agent/transport/transport.h"
#include "metrics/registry.h"

namespace outrider::agent {

struct NodeGroupOptions {
  uint64_t direct_max_bytes = 256 << 10;  // allreduce at most this large exchanges directly
  uint64_t chunk_bytes = 1 << 20;         // ring chunk (the unit of pipelining)
  uint64_t sparse_block_rows = 8;         // block size of the sparse `block` algorithm
  double link_bytes_per_s = 1.25e9;       // bandwidth the sparse cost model assumes until measured
};

// Thread-safety: loop thread only.
class NodeGroup {
 public:
  // `reports` (sparse ops; else null): per local rank, its own status when `result` is ok.
  using Done = std::function<void(uint64_t key, uint64_t seq, const Status& result,
                                  const std::vector<OpReport>* reports)>;

  NodeGroup(std::string job_id, uint64_t job_hash, uint64_t self_hash, int num_nodes,
            int node_rank, int local_size, Transport* transport, Done done,
            NodeGroupOptions options = {});
  ~NodeGroup();

  int num_nodes() const { return num_nodes_; }
  int node_rank() const { return node_rank_; }
  bool ready() const { return !peers_.empty(); }
  // Some send still reads client memory or instance buffers.
  bool busy() const;
  // Peers by node rank (this node's entry is unused). Makes the group ready.
  void SetPeers(std::vector<PeerId> peers) {
    peers_ = std::move(peers);
    SendAborts();
  }
  const std::vector<PeerId>& peers() const { return peers_; }
  // Node whose agent is `peer`, or -1.
  int NodeOfPeer(PeerId peer) const;
  // "ranks 4-7 (node 1)".
  std::string DescribeNode(int node) const;

  // Every local rank submitted instance (key, seq); `ops` by local rank, valid until Done.
  // `priority` orders this instance's bulk sends (lower = sooner).
  void Start(uint64_t key, uint64_t seq, const std::vector<const ValidatedOp*>& ops, int32_t priority = 0);
  // Sparse allreduce with row demand: the demanded rows are in every local client's output;
  // `reports` by local rank (a rank whose output is too small has a failed status and gets no
  // early notice). The instance's Done follows.
  using Partial = std::function<void(uint64_t key, uint64_t seq, const std::vector<OpReport>& reports)>;
  void set_partial(Partial partial) { partial_ = std::move(partial); }
  // Bulk sends of every instance go through `scheduler` (may be null: sent at once).
  void set_scheduler(SendScheduler* scheduler) { scheduler_ = scheduler; }
  void OnMessage(const PeerHeader& h, const uint8_t* data, size_t len);
  // This node's ranks disagree on instance (key, seq) among themselves: every other node fails it
  // with `why` too (sent once the peers are known).
  void Abort(uint64_t key, uint64_t seq, const Status& why);
  // Allgather-phase ring chunks land directly in the node buffer; everything else is staged.
  uint8_t* RecvBuffer(const PeerHeader& h, size_t len);
  // Does one slice of deferred local reduction (large allreduces reduce their local inputs
  // slice by slice, overlapped with the ring). True if it did any.
  bool Pump();
  // What a running instance waits for ("contributions of ranks 4-7 (node 1)", "ring chunks",
  // "sends to finish"), or "" if it is not known here.
  std::string WaitingFor(uint64_t key, uint64_t seq) const;
  // Fails every instance (started ones through Done) and forgets buffered messages.
  void FailAll(const Status& why);
  // Tells every peer that this node's clients left the job; `lost_node` >= 0 says the job failed
  // here because that node was lost, so the peers can name the real cause.
  void SayJobLeft(int lost_node = -1);

 private:
  struct Instance;
  struct SparseState;
  struct SparseHistory {
    double union_ratio = -1, block_union_ratio = -1;
  };
  Instance& Get(uint64_t key, uint64_t seq);
  // Sparse collectives (node_group_sparse.cc).
  void StartSparse(Instance& inst);
  void AgreeSparse(Instance& inst);
  void OnSparsePiece(Instance& inst, const PeerHeader& h, const uint8_t* data, size_t len);
  void DeliverSparse(Instance& inst, int from, uint32_t phase, const std::vector<uint8_t>& msg);
  void SendSparse(Instance& inst, int node, uint32_t phase, std::shared_ptr<const std::vector<uint8_t>> bytes);
  void PumpSparse(Instance& inst);
  void MaybeFinishSparse(Instance& inst);
  std::vector<OpReport> SparseReports(Instance& inst);
  // `message_len`: for kSparse chunks, the length of the whole message the chunk belongs to.
  void SendTo(int node, Instance& inst, PeerMsg type, uint32_t step, uint64_t offset,
              const void* data, size_t len, uint64_t message_len = 0);
  // Hands one message to the transport (or drops it if its instance failed meanwhile).
  void Issue(int node, const PeerHeader& h, const void* data, size_t len, bool scheduled, uint64_t key, uint64_t seq);
  void MaybeAgree(Instance& inst);
  void StartRing(Instance& inst);
  void StartChain(Instance& inst);
  void StartGatherRing(Instance& inst);
  void OnGatherChunk(Instance& inst, uint32_t step, uint64_t offset, const uint8_t* data, size_t len);
  void OnChainChunk(Instance& inst, uint64_t offset, const uint8_t* data, size_t len);
  void OnRingChunk(Instance& inst, uint32_t step, uint64_t offset, const uint8_t* data, size_t len);
  void FinishDirect(Instance& inst);
  // Makes sure the local reduction of [offset, offset + len) of the node buffer is done.
  void EnsureLocal(Instance& inst, uint64_t offset, uint64_t len);
  void ReduceSlice(Instance& inst, uint64_t slice);
  void Complete(Instance& inst, const Status& st);
  void Notify(Instance& inst);
  void MaybeErase(uint64_t key, uint64_t seq);

  std::string job_id_;
  uint64_t job_hash_;
  uint64_t self_hash_;
  int num_nodes_;
  int node_rank_;
  int local_size_;
  Transport* transport_;  // Not owned; outlives the group.
  SendScheduler* scheduler_ = nullptr;  // Not owned; outlives the group (the Network's).
  Done done_;
  Partial partial_;
  NodeGroupOptions options_;
  void ApplyLeft(int node);
  void HandleMessage(const PeerHeader& h, const uint8_t* data, size_t len);

  void SendAborts();
  std::vector<std::tuple<uint64_t, uint64_t, Status>> aborts_;  // until the peers are known
  std::vector<PeerId> peers_;
  std::map<std::pair<uint64_t, uint64_t>, Instance> instances_;
  // Messages sent to / delivered from each node. A JobLeft carries the sender's count, so it is
  // acted on only after everything the node sent before it has been delivered (rendezvous
  // payloads can overtake each other).
  std::vector<uint64_t> sent_to_;
  std::vector<uint64_t> received_from_;
  std::vector<int64_t> left_after_;  // -1: the node has not left
  std::vector<bool> left_;
  std::vector<int> left_cause_;  // node whose loss made the leaving node give up, or -1
  std::map<uint64_t, SparseHistory> sparse_history_;  // by key: union growth seen so far
  double link_estimate_ = 0;  // bytes/s measured on large sparse exchanges; 0: none yet
  metrics::Counter* bytes_sent_ = nullptr;  // created on first use; owned by the registry
  metrics::Counter* bytes_recv_ = nullptr;
  metrics::Gauge* sparse_density_ = nullptr;
  metrics::Gauge* wire_efficiency_ = nullptr;
};

uint64_t HashBytes(const void* data, size_t len);
// "key 0x... seq N": names one collective instance in errors and logs.
std::string InstanceName(uint64_t key, uint64_t seq);

}  // namespace outrider::agent
