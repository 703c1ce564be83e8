// The shim's client: connection to the node agent, control segment rings, shared regions,
// arena, and the table of ops in flight. The C API in c_api.cc is a thin layer over it.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ipc/event_fd.h"
#include "ipc/memfd.h"
#include "ipc/protocol.h"
#include "ipc/ring.h"
#include "ipc/unix_channel.h"
#include "shim/arena.h"

namespace outrider::shim {

struct ConnectConfig {
  std::string socket_path;
  std::string job_id;
  int32_t rank = 0, world_size = 1, local_rank = 0, local_world_size = 1;
  uint64_t arena_bytes = uint64_t{256} << 20;
  int timeout_ms = 5000;
  uint32_t spin_us = 20;
  std::string root_addr;  // host:port of the job's root agent (multi-node)
  std::string token;
  ipc::GpuMode gpu_mode = ipc::GpuMode::kStaging;  // OUTRIDER_GPU_MODE: staging or ipc
};

// Fills unset fields from the environment (OUTRIDER_SOCKET, OUTRIDER_JOB_ID, RANK, WORLD_SIZE,
// LOCAL_RANK, LOCAL_WORLD_SIZE, OUTRIDER_ARENA_BYTES, OUTRIDER_SPIN_US, OUTRIDER_GPU_MODE);
// `explicit_*` < 0 or empty means unset. Unparsable variables are errors naming the variable.
struct ConnectRequest {
  const char* socket_path = nullptr;
  const char* job_id = nullptr;
  int32_t rank = -1, world_size = -1, local_rank = -1, local_world_size = -1;
  uint64_t arena_bytes = 0;
  int timeout_ms = 0;
};
Result<ConnectConfig> ResolveConnectConfig(const ConnectRequest& request);

struct OpArgs {
  ipc::OpKind kind;
  uint32_t comm = 0;  // 0: the job; else a communicator handle from CommCreate / CommSplit
  ipc::DType dtype = ipc::DType::kF32;
  ipc::ReduceOp reduce_op = ipc::ReduceOp::kSum;
  int32_t root = 0;
  uint64_t count = 0;
  const void* send = nullptr;
  uint64_t send_bytes = 0;
  void* recv = nullptr;
  uint64_t recv_bytes = 0;
  uint64_t key = 0;
  int32_t priority = 0;
  const int64_t* send_counts = nullptr;  // alltoallv: world_size entries each
  const int64_t* recv_counts = nullptr;
  // Sparse ops: ids travel in `aux`, result ids in `out_ids`.
  uint64_t rows = 0;
  ipc::DType id_dtype = ipc::DType::kI64;
  uint32_t algo = 0;
  const void* ids = nullptr;
  uint64_t ids_bytes = 0;
  void* out_ids = nullptr;
  uint64_t out_ids_bytes = 0;
  const void* demand = nullptr;  // sparse allreduce: demanded ids (id_dtype)
  uint64_t demand_bytes = 0;
  void* stream = nullptr;  // CUstream of an op on device buffers
  int32_t fence = -1;      // internal: the fence slot a staged op waits on (>= 0: submitted fenced)
};

// What the agent reported about a finished op beyond its status.
struct OpResult {
  uint64_t result_rows = 0;
  uint32_t algo = 0;
  uint64_t predicted_bytes = 0;
  uint64_t wire_bytes_sent = 0;
  uint64_t wire_bytes_recv = 0;
  uint64_t agent_ns = 0;
  uint64_t demand_rows = 0;
};

// Thread-safety: one thread at a time (the C API documents this contract).
class Client {
 public:
  static Result<std::unique_ptr<Client>> Connect(const ConnectConfig& config);
  ~Client();

  const ConnectConfig& config() const { return config_; }

  Result<void*> Alloc(size_t bytes);
  Status Free(void* p);
  Result<void*> CreateRegion(size_t bytes);
  Result<void*> RegisterFd(int fd, size_t bytes);
  Status ReleaseRegion(void* base);
  // Releases the GPU allocations registered with the agent that start in [p, p + bytes).
  Status ReleaseDeviceMemory(const void* p, size_t bytes);

  // ---- Communicators: groups of the job's ranks, each with collectives of its own. ----
  // Handle 0 is the job itself. A communicator's ranks are numbered as its creator says; the
  // agents number them node by node, and ops are translated between the two.
  static constexpr uint32_t kJobComm = 0;
  // Called by every member of the new communicator (and by no one else): its rank i is rank
  // ranks[i] of `parent`. Members must create communicators from the same list in the same order.
  Result<uint32_t> CommCreate(uint32_t parent, const std::vector<int32_t>& ranks);
  // Called by every rank of `parent`: those with the same color >= 0 form a communicator, ranked
  // by (key, rank in parent). A negative color joins none: the result is nullopt.
  Result<std::optional<uint32_t>> CommSplit(uint32_t parent, int32_t color, int32_t key);
  // Leaves a communicator (no op on it may be in flight).
  Status CommDestroy(uint32_t comm);
  Result<int> CommRank(uint32_t comm) const;
  Result<int> CommSize(uint32_t comm) const;

  Result<uint64_t> Submit(const OpArgs& args) { return Submit(args, false); }
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

  std::string& last_error() { return last_error_; }

 private:
  struct Region {
    uint32_t id;
    size_t bytes;
    ipc::Mapping mapping;  // host regions
    UniqueFd fd;
    bool device = false;   // a GPU allocation registered with the agent (gpu_mode ipc)
    uint64_t buffer_id = 0;  // CU_POINTER_ATTRIBUTE_BUFFER_ID: a new allocation at the same address differs
  };
  struct Comm {
    uint64_t key = 0;  // names it within the job: the agents derive its job id from it
    int rank = 0, size = 1;
    std::vector<int32_t> node;        // by rank: the rank's node in the job
    std::vector<int32_t> agent_rank;  // by rank: the agents' node-by-node number for it
    bool node_order = true;           // agent_rank[r] == r for every rank
    std::map<uint64_t, uint32_t> created;  // communicators made from it, by member list hash
    uint64_t splits = 0;
  };
  // Joins the communicator of `members` (ranks of `parent`) named `key` at the agent.
  Result<uint32_t> JoinComm(const Comm& parent, const std::vector<int32_t>& members, uint64_t key);
  Result<const Comm*> FindComm(uint32_t comm) const;

  // `agent_order`: rank-ordered results may come in the agents' rank order (internal ops that
  // map blocks back themselves). An op refused here (after its communicator is known) still
  // reaches the agent as a refusal (ipc::kSubmitRefused): the agent counts it in its key's
  // sequence, so this rank's next op of the key never pairs with the other ranks' op of this one.
  Result<uint64_t> Submit(const OpArgs& args, bool agent_order);
  Result<uint64_t> SubmitEntry(const Comm& comm, const OpArgs& args, bool agent_order);
  // Tells the agent that the op `a` was refused here with `why` (queued while the ring is full).
  void Refuse(const OpArgs& a, const Status& why);
  // Pushes queued refusals; false while some are still queued (the ring is full).
  bool PushRefusals();

  struct OpState {
    bool done = false;
    uint32_t comm = 0;
    bool demand_ready = false;  // a partial completion arrived
    Status result;
    void* aux = nullptr;  // arena memory the agent reads until the op completes
    OpResult info;
    // Device buffers: the staging buffers and the fence slot, held until the stream has copied
    // the result back (the slot's released word holds the op id).
    std::vector<void*> staging;
    int32_t fence = -1;
  };
  // ---- Device buffers (client_gpu.cc) ----
  struct Gpu {
    const void* driver = nullptr;           // the cuda::Driver
    void* ctx = nullptr;                    // CUcontext of the first op: where disconnect unpins
    uint64_t fences = 0;                    // device address of the control segment's fence slots
    std::unique_ptr<uint64_t[]> released;   // per slot: the op whose result the stream copied back
    uint64_t released_dev = 0;              // its device address
    std::vector<uint32_t> free_slots;
    std::vector<uintptr_t> registered;      // region bases registered with CUDA (pinned)
    // A copy of the submission ring's doorbell: each op's stream rings it once it wrote the ready
    // fence, so the agent sees the inputs ready at once, not at its next timed look. Shared with
    // the host functions still queued on streams (the last one closes it).
    std::shared_ptr<const UniqueFd> agent_wake;
    // A stream may use the control segment or staging in ways the shim no longer tracks (a CUDA
    // call failed halfway through an op's stream work): the memory is never unmapped.
    bool untracked = false;
    // The watchdog: a thread that sees the agent's socket hang up and lets every waiting stream go
    // on at once, whatever the caller's thread is doing (docs/design.md#gpu-path: nothing waits
    // forever).
    std::atomic<uint64_t> last_op{0};  // the newest op a stream may wait for
    std::atomic<bool> agent_gone{false};
    UniqueFd stop;                     // eventfd: the watchdog exits when it is readable
    std::thread watchdog;
    void StopWatchdog();
    ~Gpu();
  };
  Status GpuSetup(const void* driver);
  Status RegisterHost(const void* p);
  bool IsDevice(const void* p) const;
  // The region holding `p`, or end().
  std::map<uintptr_t, Region>::const_iterator RegionOf(const void* p) const;
  // Whether `p` lies in a host region of this client.
  bool InHostRegion(const void* p) const;
  // An op on device buffers, ordered on args.stream: staged through the arena (gpu_mode staging)
  // or on the GPU allocations themselves, registered with the agent on first use (ipc).
  Result<uint64_t> SubmitOnStream(const OpArgs& args);
  // Whether [p, p + bytes) lies inside one GPU allocation (true for memory that is none).
  bool InOneAllocation(const void* p, uint64_t bytes) const;
  // Registers the GPU allocation holding [p, p + bytes) with the agent, once.
  Status RegisterDevice(const void* p, uint64_t bytes, const char* which);
  // Frees what staged ops whose streams are done held (their handles are gone already).
  void RetireStaged();
  bool Retired(uint64_t op, const OpState& s) const;
  void FreeStaging(const OpState& s);
  // Every fenced op's stream is let go (done = its id, status `code`): the agent is gone, or the
  // client leaves.
  void ReleaseFences(Code code = Code::kUnavailable);
  // Before the client's memory goes: lets every stream of a staged op go on and waits (up to the
  // connect timeout) until none uses the control segment or staging any more. Streams still
  // using them then keep them: the memory is left mapped and pinned for good (logged as
  // last_error) rather than freed under a running copy.
  void StopGpu();
  void Release(std::unordered_map<uint64_t, OpState>::iterator it);

  explicit Client(ConnectConfig config);
  Status Handshake();
  Result<void*> AddRegion(UniqueFd fd, size_t bytes);
  Result<ipc::BufferRef> Resolve(const void* p, uint64_t bytes, const char* which) const;
  // Sends a request and waits for its reply (a RegionReply: regions and communicators).
  Result<ipc::RegionReply> RegionRequest(const void* msg, size_t bytes, const int* fds, size_t nfds,
                                         uint32_t request_id);
  void DrainCompletions();
  // Blocks until a completion may have arrived, the agent said something, or `deadline`
  // (monotonic ns; UINT64_MAX: none). False once the deadline passed.
  bool Await(uint64_t deadline, int wake_fd = -1);
  // Reads whatever the agent sent on the socket; on EOF or goodbye records why it is gone.
  void OnSocketReadable();
  // Why the agent is gone, if a receive's result says so: failure, EOF or a goodbye.
  static std::optional<Status> Departure(const Result<size_t>& n, const uint8_t* buf);
  Status AgentGone() const;
  // Records why the agent is gone (gone_) and lets the streams of staged ops go on.
  void MarkGone(Status why);

  ConnectConfig config_;
  ipc::UnixChannel channel_;
  ipc::Mapping control_;
  UniqueFd sq_efd_;
  UniqueFd cq_efd_;
  ipc::RingProducer<ipc::SubmitEntry> sq_;
  ipc::RingConsumer<ipc::CompletionEntry> cq_;
  ipc::AdaptiveSpin spin_;
  std::unique_ptr<Arena> arena_;
  std::map<uintptr_t, Region> regions_;  // by base address
  std::unordered_map<uint64_t, OpState> ops_;
  std::unique_ptr<Gpu> gpu_;                          // made on the first op on device buffers
  std::vector<std::pair<uint64_t, OpState>> retiring_;  // released staged ops the stream still uses
  std::map<uint32_t, Comm> comms_;  // by handle; 0 is the job
  uint64_t next_op_id_ = 1;
  uint64_t entries_pushed_ = 0;             // ring entries pushed, ops and refusals
  std::deque<ipc::SubmitEntry> refusals_;  // refusals that found the ring full, in order
  uint32_t next_request_id_ = 1;
  size_t in_flight_ = 0;  // submitted, completion not yet drained
  Status gone_;           // set once the agent closed the connection
  std::string last_error_;
};

uint64_t HashKey(const char* name);
// An agent reply's status (code and message field).
Status FromReply(int32_t code, const char* message);

}  // namespace outrider::shim
