// Dense collectives of a job on its trainers' GPU memory, run by the agent on NCCL communicators it
// owns (docs/design.md#gpu-path): one communicator per job, one rank per local rank on the GPU its
// buffers live on (NCCL refuses two ranks on one GPU), its NCCL rank the trainer's job rank. Node
// 0's agent makes the communicator's unique id and sends it to the other nodes' agents; every agent
// creates its ranks non-blocking, within a deadline. The loop thread is the one thread of the agent
// that issues NCCL calls, grouped across the job's GPUs, each communicator on streams of its own.
//
// One launch order (NCCL deadlocks unless every GPU sees a communicator's launches in the same
// order): node 0's agent alone decides it. Once every node has submitted an instance (the node
// group's fingerprint round agreed), node 0 cuts it into chunks (allreduce and broadcast: at most
// nccl_chunk_bytes each; other kinds whole) and hands out launch tickets — numbers 0, 1, 2, ... —
// to the chunks of the instances that are ready, the most urgent first (its priority value less
// one level per aging interval it has waited ready, as the send scheduler ages chunks, so none
// starves; ties in the order they became ready), keeping at most two chunks' bytes of tickets
// unfinished. Every agent,
// node 0's too, launches strictly in ticket order. Priorities thus act between chunks, local
// submission orders may differ from node to node, and no two agents ever launch differently.
// An alltoallv is one launch: a group of sends to and receives from every rank.
// A single-node job is its own node 0.
//
// An instance completes once every stream passed all its chunks (a pinned ticket word, as for the
// agent's copies), or fails with the communicator's asynchronous error, which aborts the
// communicators: the job's later ops fail with that error.
//
// Whether the agent runs NCCL at all is the agent's gpu_nccl setting (nccl_policy.h).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "agent/engine/op.h"
#include "agent/memory/gpu_memory.h"
#include "base/status.h"

namespace outrider::agent {

// Whether `op` is one the agent runs through NCCL: a dense allreduce, broadcast, allgather or
// reduce-scatter of a dtype NCCL has, or an alltoallv (of any dtype: it moves bytes), on GPU
// memory only.
bool NcclEligible(const ValidatedOp& op);

// One chunk's place in a job's launch order: elements [first, first + count) of an instance.
// Node 0's agent sends it to the others as the payload of a kNcclTicket.
struct NcclTicket {
  uint64_t number;  // 0, 1, 2, ... in launch order
  uint64_t first;
  uint64_t count;
};
static_assert(sizeof(NcclTicket) == 24);

// One class in one file (nccl_path.cc): the launch order and the communicators fail together (a
// ticket launches only on ready communicators, and a communicator's error fails every ticketed
// chunk, whose order can then no longer be kept).
// Thread-safety: loop thread only.
class NcclPath {
 public:
  struct Options {
    uint64_t init_timeout_ns = 60'000'000'000;
    uint64_t chunk_bytes = uint64_t{32} << 20;
    uint64_t aging_ns = 100'000'000;  // a ready instance gains a priority level per this; 0 = none
    std::function<uint64_t()>
        clock;                  // for the aging (tests use a fake one); empty: the monotonic clock
    int* busy_paths = nullptr;  // counts this path while it is busy (the agent's; may be null)
    GpuMemory* memory = nullptr;  // the agent's GPU memory: streams, tickets (null: none)
  };
  // Messages to the job's other nodes' agents (node 0 sends both; unused with one node).
  struct Links {
    std::function<void(const std::string& id)> send_id;
    std::function<void(uint64_t key, uint64_t seq, const NcclTicket& t)> send_ticket;
  };
  // `node`: this node's rank in the job (0 decides the launch order); `world`: the job's ranks.
  NcclPath(std::string job_id, int node, int world, Options options, Links links = {});
  ~NcclPath();  // aborts the communicators (the job is gone: nothing waits for them)
  NcclPath(const NcclPath&) = delete;
  NcclPath& operator=(const NcclPath&) = delete;

  // The job rank of each local rank (before the first Add).
  void SetRanks(std::vector<int> ranks) { ranks_ = std::move(ranks); }
  bool has_ranks() const { return !ranks_.empty(); }
  using Done = std::function<void(const Status&)>;
  // Every local rank submitted instance (key, seq): `ops` by local rank (all NcclEligible, agreed
  // among them, valid until `done` runs or Drop). It launches once its tickets come: at node 0
  // after Agreed.
  void Add(uint64_t key, uint64_t seq, std::vector<const ValidatedOp*> ops, int32_t priority,
           Done done);
  // Node 0: every node added the instance, alike. (Other nodes ignore it.)
  void Agreed(uint64_t key, uint64_t seq);
  // The instance failed before it could run (its nodes disagreed, a node aborted it): forgotten,
  // `done` not called. If some chunk of it was already in the launch order, that order cannot be
  // kept: the communicators fail with `why`.
  void Drop(uint64_t key, uint64_t seq, const Status& why);
  // From node 0's agent (other nodes): the communicator's unique id, and a chunk's ticket.
  void OnId(const uint8_t* data, size_t len);
  void OnTicket(uint64_t key, uint64_t seq, const NcclTicket& t);
  // The job failed (`why`): the communicators are aborted, every instance fails with `why`.
  void Fail(const Status& why) { FailAll(why); }
  // The job is going: the communicators are aborted, and nothing is told (Drop finds nothing).
  void Abandon();
  // Creates communicators, hands out tickets, launches, completes: true if it did any of it.
  bool Pump();
  bool busy() const { return !items_.empty() || !flight_.empty(); }
  nlohmann::json StatusJson() const;

 private:
  // The agent's CUDA, from its GPU memory.
  Result<CudaMemory*> Cuda() const {
    if (options_.memory == nullptr) return FailedPrecondition("this agent has no GPU memory");
    return options_.memory->Get();
  }
  enum class State { kNone, kInit, kReady, kFailed };
  using InstanceId = std::pair<uint64_t, uint64_t>;
  struct Item {
    std::vector<const ValidatedOp*> ops;
    Done done;
    int32_t priority = 0;
    uint64_t count = 0;       // elements the tickets cover (alltoallv: 1, its one launch)
    uint64_t unit_bytes = 0;  // bytes of one of them
    uint64_t ticketed = 0;    // node 0: elements handed out
    uint64_t completed = 0;   // elements whose chunks finished here
    bool in_order = false;    // some chunk of it has a ticket
    uint64_t ready = 0;       // node 0: its place in ready_ (0: not there yet)
    uint64_t ready_ns = 0;    // node 0: when it became ready
  };
  struct InFlight {
    InstanceId id;
    uint64_t count = 0, bytes = 0;
    std::vector<std::pair<int, uint64_t>> tickets;  // (stream, ticket)
  };
  Status StartInit(const std::vector<const ValidatedOp*>& ops);
  Status CreateComms();
  // Node 0: tickets for ready chunks, by priority, while fewer than two chunks' bytes are
  // unfinished.
  void HandOutTickets();
  Status Launch(const Item& item, const NcclTicket& t, InFlight* flight);
  // The communicators failed (`why`): abort them, fail everything queued and in flight.
  void FailAll(const Status& why);
  // The first communicator's asynchronous error; `in_progress` (if given): some is still starting.
  Status AsyncError(bool* in_progress = nullptr) const;
  bool PumpOnce();
  bool root() const { return node_ == 0; }

  std::string job_id_;
  int node_;
  int world_;
  Options options_;
  Links links_;
  State state_ = State::kNone;
  uint64_t init_deadline_ns_ = 0;
  std::string id_;            // the communicator's unique id (node 0 makes it)
  std::vector<int> ranks_;    // by local rank: its job rank, the NCCL rank
  std::vector<int> devices_;  // by local rank: the agent's ordinal of its GPU
  std::vector<int> streams_;  // by local rank: the communicator's stream on that GPU
  std::vector<void*> comms_;  // by local rank: ncclComm_t
  std::map<InstanceId, Item> items_;
  // Node 0: instances every node added, with chunks left to hand out, by (priority, readiness).
  std::set<std::tuple<int32_t, uint64_t, InstanceId>> ready_;
  // Node 0: the ready instance to hand a ticket to next (priority aged by its wait, then
  // readiness).
  std::set<std::tuple<int32_t, uint64_t, InstanceId>>::iterator MostUrgent();
  uint64_t Now() const;
  uint64_t ready_count_ = 0;       // instances that became ready so far
  uint64_t unfinished_bytes_ = 0;  // node 0: bytes of chunks with a ticket, not finished here
  std::map<uint64_t, std::pair<InstanceId, NcclTicket>> tickets_;  // by number, not launched yet
  uint64_t next_ticket_ = 0;  // node 0: the next number to hand out
  uint64_t next_launch_ = 0;
  std::deque<InFlight> flight_;
  Status failed_;
  uint64_t launched_ = 0, completed_ = 0;
  bool counted_busy_ = false;  // counted in *options_.busy_paths
  void CountBusy();
};

}  // namespace outrider::agent
