// The shim's client: owns the connection to the node agent, the shared regions, the
// communicators and the device-buffer path, and keeps the table of ops in flight (submission,
// refusals, completions, waits). The C API in c_api.cc and c_api_ops.cc is a thin layer over it.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "ipc/protocol.h"
#include "shim/communicators.h"
#include "shim/connect_config.h"
#include "shim/connection.h"
#include "shim/device_ops.h"
#include "shim/op.h"
#include "shim/regions.h"

namespace outrider::shim {

// One class in one file (client.cc, ~530 lines): submitting, completing, waiting and reaching a
// restarted agent (Reconnect) all read and change the one table of ops in flight and the one
// connection; reconnecting must fail, keep or submit again every op in that table at once. What
// separates cleanly is apart: the connection, the regions, the communicators, the device path.
// Thread-safety: one thread at a time (the C API documents this contract).
class Client {
 public:
  static Result<std::unique_ptr<Client>> Connect(const ConnectConfig& config);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  const ConnectConfig& config() const { return config_; }

  // Every call that needs the agent first reaches a restarted one if the agent went away (see
  // Reconnect).
  Result<void*> Alloc(size_t bytes) {
    OUTRIDER_RETURN_IF_ERROR(Reconnect());
    return regions_.Alloc(bytes);
  }
  Status Free(void* p) { return regions_.Free(p); }
  Result<void*> CreateRegion(size_t bytes) {
    OUTRIDER_RETURN_IF_ERROR(ReachAgent());
    return regions_.Create(bytes);
  }
  Result<void*> RegisterFd(int fd, size_t bytes) {
    OUTRIDER_RETURN_IF_ERROR(ReachAgent());
    return regions_.RegisterFd(fd, bytes);
  }
  Status ReleaseRegion(void* base) { return regions_.Release(base); }
  // Releases the GPU allocations registered with the agent that start in [p, p + bytes).
  Status ReleaseDeviceMemory(const void* p, size_t bytes) {
    return regions_.ReleaseDevice(p, bytes);
  }

  // ---- Communicators: groups of the job's ranks, each with collectives of its own. ----
  // Handle 0 is the job itself. A communicator's ranks are numbered as its creator says; the
  // agents number them node by node, and ops are translated between the two.
  static constexpr uint32_t kJobComm = Communicators::kJob;
  // Called by every member of the new communicator (and by no one else): its rank i is rank
  // ranks[i] of `parent`. Members must create communicators from the same list in the same order.
  Result<uint32_t> CommCreate(uint32_t parent, const std::vector<int32_t>& ranks) {
    OUTRIDER_RETURN_IF_ERROR(ReachAgent());
    return comms_.Create(parent, ranks);
  }
  // Called by every rank of `parent`: those with the same color >= 0 form a communicator, ranked
  // by (key, rank in parent). A negative color joins none: the result is nullopt.
  Result<std::optional<uint32_t>> CommSplit(uint32_t parent, int32_t color, int32_t key);
  // Leaves a communicator (no op on it may be in flight).
  Status CommDestroy(uint32_t comm);
  Result<int> CommRank(uint32_t comm) const { return comms_.Rank(comm); }
  Result<int> CommSize(uint32_t comm) const { return comms_.Size(comm); }

  Result<uint64_t> Submit(const OpArgs& args);
  // DeadlineExceeded leaves the op pending; any other result releases the handle.
  Status Wait(uint64_t op, int64_t timeout_ms, OpResult* result = nullptr);
  // Sets *done; when done returns the op's result (and `result`, if given) and releases the handle.
  Status Test(uint64_t op, bool* done, OpResult* result = nullptr);
  // Sparse allreduce with demand: waits until the demanded rows are in the output (or the op
  // finished). Never releases the handle: Wait for the op still follows. OK once the rows are
  // there; the op's error if it failed first; DeadlineExceeded at the timeout.
  Status WaitDemand(uint64_t op, int64_t timeout_ms, OpResult* result = nullptr);
  // Blocks until a completion (whole or partial, of any op) came in, `wake_fd` (if >= 0) is
  // readable, or `timeout_ms` passed (< 0: no limit): OK, or DeadlineExceeded, or why the agent is
  // gone. Never reads `wake_fd`.
  Status WaitEvent(int wake_fd, int64_t timeout_ms);

  // ---- Generations (docs/elastic.md). ----
  struct Membership {
    uint32_t generation = 0;
    int32_t rank = -1, world_size = 0, local_rank = -1, local_world_size = 0;
    uint32_t joiners_waiting = 0;
    std::string root_addr;  // the agent of the generation's node 0 ("" in generation 0)
  };
  // The client's place in its job, and the joiners the agent holds (the job's node 0 only). An
  // error when the job can no longer go on in this generation (a rank or node was lost); the
  // membership is filled in either way.
  Status GetMembership(Membership* out);
  // Moves the client into the job's next generation: its rank and sizes change, every
  // communicator but the job's is gone, its memory stays registered. No op may be in flight.
  // With its agent gone, it first connects to the agent that comes back at its socket (for up to
  // reconnect_ms): a rank of a job across nodes as a joiner of its job, taken into the generation
  // that admits it.
  Status Reconfigure(uint32_t timeout_ms, Membership* out);

  std::string& last_error() { return last_error_; }

  // Once the agent went away (it was restarted, upgraded, or died): every op still in flight fails
  // once, saying whether it may be submitted again (its inputs are intact unless it ran in place),
  // and the client connects to the agent at its socket again for up to reconnect_ms, registers its
  // memory there and joins its communicators again, keeping every pointer and handle. A client of
  // a job across nodes, of a re-formed job, or that ran ops on GPU memory does not reconnect: the
  // agent's departure stays its answer. OK at once while the agent is there.
  Status Reconnect();
  // The same, having first read whether the agent is leaving right now.
  Status ReachAgent();

 private:
  Client(const ConnectConfig& config, std::unique_ptr<Connection> conn);
  // Reconnect as described; `as_joiner`: to rejoin a job across nodes as a joiner (any client but
  // one that ran ops on GPU memory), in no job until Reconfigure places it.
  Status Reconnect(bool as_joiner);

  // `agent_order`: rank-ordered results may come in the agents' rank order (internal ops that
  // map blocks back themselves). An op refused here (after its communicator is known) still
  // reaches the agent as a refusal (ipc::kSubmitRefused): the agent counts it in its key's
  // sequence, so this rank's next op of the key never pairs with the other ranks' op of this one.
  Result<uint64_t> Submit(const OpArgs& args, bool agent_order);
  // After a re-form into a generation whose nodes run different numbers of ranks.
  Status LearnJobNodes();
  // Allgathers `mine` (as many ints on every rank) over communicator `comm` of `size` ranks, in
  // the agents' order, as collective `key`.
  Result<std::vector<int32_t>> AllgatherInts(uint32_t comm, size_t size,
                                             const std::vector<int32_t>& mine, const char* key);
  Result<uint64_t> SubmitEntry(const Communicators::Comm& comm, const OpArgs& args,
                               bool agent_order);
  // Tells the agent that the op `a` was refused here with `why` (queued while the ring is full).
  void Refuse(const OpArgs& a, const Status& why);
  // Pushes queued refusals; false while some are still queued (the ring is full).
  bool PushRefusals();
  void DrainCompletions();
  // After a hand-over (Connection::handed_over), ops whose entries the agent never took count as
  // given back: they go to the next agent with the others.
  void MoveUntaken();
  void Release(OpMap::iterator it);

  // Declared in the order they are built; destroyed in reverse (the device path first, the
  // connection last).
  ConnectConfig config_;
  std::unique_ptr<Connection> conn_;
  Regions regions_;
  Communicators comms_;
  OpMap ops_;
  DeviceOps device_;
  uint64_t next_op_id_ = 1;
  uint64_t entries_pushed_ = 0;            // ring entries pushed, ops and refusals
  std::deque<ipc::SubmitEntry> refusals_;  // refusals that found the ring full, in order
  size_t in_flight_ = 0;                   // submitted, completion not yet drained
  std::string last_error_;
};

}  // namespace outrider::shim
