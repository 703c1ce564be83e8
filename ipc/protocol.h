// The shim <-> agent wire protocol. Everything here crosses a trust boundary: structs are fixed
// size, trivially copyable, little-endian, and checked with static_assert. Bump kProtocolVersion
// on any change to a struct, an enum value or the control-segment layout, and keep the previous
// version's layouts readable in the agent for one release (kOldestProtocolVersion).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace outrider::ipc {

inline constexpr uint32_t kMagic = 0x5244524F;  // "ORDR" little-endian
inline constexpr uint16_t kProtocolVersion = 13;
// The oldest client version an agent of this build serves. An agent serves the shim one release
// behind it, so that an agent is upgraded under running trainers and the trainers move to the new
// shim when they next start (docs/operations.md, "Version skew"): a bump that changes a layout
// keeps the previous one readable in the agent's sessions, which answer each client in its own
// version. The shim speaks only its own version. 12 to 13: the hello gained away_ms and the
// reconnect flags (a 12 hello is kHelloRequestV12Bytes long, with neither).
inline constexpr uint16_t kOldestProtocolVersion = 12;
static_assert(kOldestProtocolVersion + 1 == kProtocolVersion,
              "an agent serves its own protocol version and the one before it");

// ---- Enums shared with the C API (values equal the OUTRIDER_* constants in outrider.h). ----
// The dense dtypes of torch.distributed. Complex numbers are (real, imaginary) pairs of f32 or
// f64; bool is one byte, any nonzero byte reads as true.
enum class DType : uint32_t {
  kF32 = 0,
  kF64 = 1,
  kF16 = 2,
  kBF16 = 3,
  kI32 = 4,
  kI64 = 5,
  kU8 = 6,
  kI8 = 7,
  kI16 = 8,
  kBool = 9,
  kC64 = 10,
  kC128 = 11,
};
inline constexpr uint32_t kNumDTypes = 12;
enum class ReduceOp : uint32_t { kSum = 0, kAvg = 1, kMin = 2, kMax = 3, kProd = 4 };
inline constexpr uint32_t kNumReduceOps = 5;
enum class OpKind : uint32_t {
  kAllreduce = 0,
  kBroadcast = 1,
  kAllgather = 2,
  kReduceScatter = 3,
  kBarrier = 4,
  kAlltoallv = 5,        // per-rank counts in the entry's aux buffer
  kSparseAllreduce = 6,  // replicated table: every rank gets the union of rows, summed
  kSparseShard = 7,      // sharded table: rows arrive summed at the rank that owns them
  kSparseLookup = 8,     // sharded table: rows fetched from the ranks that own them
  // Point to point: `root` is the peer's rank (kRecv: kAnySource for any sender), `key` the tag.
  // Matched per (sender, receiver, tag) in the order each side posted; no other rank takes part.
  kSend = 9,
  kRecv = 10,
};
inline constexpr uint32_t kNumOpKinds = 11;
inline bool IsPointToPoint(OpKind k) { return k == OpKind::kSend || k == OpKind::kRecv; }
// SubmitEntry.root of a kRecv that takes a message from any sender.
inline constexpr int32_t kAnySource = -1;
inline bool IsSparse(OpKind k) {
  return k >= OpKind::kSparseAllreduce && k <= OpKind::kSparseLookup;
}

// How a replicated sparse allreduce crosses nodes (values equal OUTRIDER_SPARSE_*).
enum class SparseAlgo : uint32_t {
  kAuto = 0,
  kAllgather = 1,
  kBalanced = 2,
  kBlock = 3,
  kDense = 4
};
inline constexpr uint32_t kNumSparseAlgos = 5;
// Which rank owns a row of a sharded table (values equal OUTRIDER_SHARD_*).
enum class ShardScheme : uint32_t { kRange = 0, kHash = 1 };
inline constexpr uint32_t kNumShardSchemes = 2;
std::string_view SparseAlgoName(SparseAlgo a);
// First row of `rank`'s shard under ShardScheme::kRange (rank == world_size gives `rows`).
inline uint64_t ShardFirstRow(uint64_t rows, int world_size, int rank) {
  return static_cast<uint64_t>(
      (static_cast<unsigned __int128>(rows) * static_cast<unsigned>(rank)) /
      static_cast<unsigned>(world_size));
}

size_t DTypeSize(DType t);  // 0 for values outside the enum
std::string_view DTypeName(DType t);
// Empty when `op` can reduce `t`; otherwise the error text, naming both. Bool has no average;
// complex numbers have no order, and no product either (torch.distributed refuses it: gloo
// would multiply the parts alone). Values outside the enums are refused too.
std::string ReduceRefusal(DType t, ReduceOp op);
std::string_view ReduceOpName(ReduceOp op);
std::string_view OpKindName(OpKind kind);

// ---- Control messages over the Unix socket (SOCK_SEQPACKET: one message per datagram). ----
enum class MsgType : uint16_t {
  kHello = 1,           // shim -> agent
  kHelloReply = 2,      // agent -> shim, with fds: control segment, sq eventfd, cq eventfd
  kRegisterRegion = 3,  // shim -> agent, with one memfd
  kRegisterRegionReply = 4,
  kReleaseRegion = 5,
  kReleaseRegionReply = 6,
  kGoodbye = 7,            // either side: orderly close, carries a reason
  kCommCreate = 8,         // shim -> agent: join a communicator (a group of the job's ranks)
  kCommCreateReply = 9,    // RegionReply layout; region_id is the communicator id
  kCommDestroy = 10,       // shim -> agent: leave a communicator
  kCommDestroyReply = 11,  // RegionReply layout
  kReform = 12,            // shim -> agent: ask about, or take part in, a new generation of the job
  kReformReply = 13,
};

struct MsgHeader {
  uint32_t magic;
  uint16_t version;
  uint16_t type;        // MsgType
  uint32_t body_bytes;  // bytes following this header
  uint32_t request_id;  // echoed in replies
};
static_assert(sizeof(MsgHeader) == 16);

inline constexpr size_t kJobIdBytes = 64;     // NUL-padded; at most 63 characters
inline constexpr size_t kMessageBytes = 192;  // NUL-terminated error text
inline constexpr size_t kAddrBytes = 64;      // NUL-padded host:port
inline constexpr size_t kTokenBytes = 64;     // NUL-padded

struct HelloRequest {
  MsgHeader header;
  char job_id[kJobIdBytes];
  int32_t rank;
  int32_t world_size;
  int32_t local_rank;
  int32_t local_world_size;
  int32_t pid;
  uint32_t requested_sq_entries;  // 0: agent default
  char root_addr[kAddrBytes];     // "host:port" of the job's root agent; "" when single-node
  char token[kTokenBytes];        // job token; agents of one job must agree on it
  uint32_t gpu_mode;              // GpuMode: how the client hands over device buffers
  uint32_t flags;                 // kHello* bits; others must be 0
  uint32_t job_class;             // JobClass; 0: normal
  uint32_t job_weight;            // its share within its class, 1..kMaxJobWeight; 0: 1
  // With kHelloReconnect: how long the client was without an agent, from noticing its previous
  // agent gone to this hello (version 13 on).
  uint32_t away_ms;
};
static_assert(sizeof(HelloRequest) == 252);
inline constexpr size_t kHelloRequestV12Bytes = 248;  // up to job_weight
// The length of a hello of `version` (one the agent serves).
inline constexpr size_t HelloBytes(uint16_t version) {
  return version <= 12 ? kHelloRequestV12Bytes : sizeof(HelloRequest);
}

// HelloRequest.flags: the client joins a running job at its next generation (kReform), not now;
// its rank and sizes in the hello are ignored until then.
inline constexpr uint32_t kHelloJoiner = 1;
// The client comes back after its agent went away (a restart or an upgrade): its regions and
// communicators follow, and the ops its previous agent gave back. kHelloAfterGoodbye: that agent
// said goodbye (it was stopped) rather than vanished (killed). Version 13 on.
inline constexpr uint32_t kHelloReconnect = 2;
inline constexpr uint32_t kHelloAfterGoodbye = 4;
// With kHelloAfterGoodbye: that agent handed the client's job across nodes over to this one
// (Goodbye kGoodbyeHandedOver); the client comes back as the same rank of the same generation.
inline constexpr uint32_t kHelloHandedOver = 8;
// With kHelloAfterGoodbye, in gpu_mode staging: the client's streams wait on fences in the control
// segment of an earlier agent, whose memfd comes with the hello (the only fd a hello carries). The
// agent reads and signals the client's fences there, so that an op on GPU memory that the previous
// agent gave back finishes at this one
// (docs/operations.md#restarting-the-agent-under-a-running-job).
inline constexpr uint32_t kHelloFences = 16;

// A job's class (docs/jobs.md): on every peer link the agent's send scheduler serves the chunks of
// a higher class first, shares a class between its jobs by weight, and ages what waits so that
// nothing starves. The values are the C API's OUTRIDER_JOB_CLASS_*.
enum class JobClass : uint32_t { kHigh = 1, kNormal = 2, kLow = 3 };
inline constexpr uint32_t kMaxJobWeight = 100;
std::string_view JobClassName(JobClass c);
// "high", "normal", "low"; anything else is nullopt.
std::optional<JobClass> ParseJobClass(std::string_view name);

struct HelloReply {
  MsgHeader header;
  int32_t code;  // outrider::Code; on error no fds follow and the agent closes
  uint32_t client_id;
  uint64_t control_bytes;  // size of the control segment (fd 0)
  char message[kMessageBytes];
};
static_assert(sizeof(HelloReply) == 224);

// How a client hands over device buffers (docs/design.md#gpu-path). kStaging: it copies them
// through its shared memory itself, the agent sees host memory only. kIpc: it registers the GPU
// allocations with the agent (RegionKind kCudaFd, kCudaIpc), which copies them itself.
enum class GpuMode : uint32_t { kStaging = 0, kIpc = 1 };
inline constexpr uint32_t kNumGpuModes = 2;
std::string_view GpuModeName(GpuMode m);

// What a registered region is, and what the message carries for it.
enum class RegionKind : uint32_t {
  kHost = 0,     // one sealed memfd of `bytes`
  kCudaFd = 1,   // one POSIX fd of a cuMem (VMM) allocation of `bytes`, on GPU `device`
  kCudaIpc = 2,  // no fd: `ipc_handle` (cudaIpcMemHandle_t) of a cudaMalloc allocation of `bytes`
};
inline constexpr size_t kDeviceUuidBytes =
    48;  // NUL-padded "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
inline constexpr size_t kIpcHandleBytes = 64;  // CU_IPC_HANDLE_SIZE

struct RegisterRegion {
  MsgHeader header;
  uint64_t bytes;                 // host: must equal the memfd's size; the memfd must be sealed
  uint32_t kind;                  // RegionKind
  uint32_t reserved;              // must be 0
  char device[kDeviceUuidBytes];  // GPU regions: the GPU's UUID
  uint8_t ipc_handle[kIpcHandleBytes];  // kCudaIpc only
};
static_assert(sizeof(RegisterRegion) == 144);

struct RegionReply {
  MsgHeader header;
  int32_t code;
  uint32_t region_id;
  char message[kMessageBytes];
};
static_assert(sizeof(RegionReply) == 216);

struct ReleaseRegion {
  MsgHeader header;
  uint32_t region_id;
  uint32_t reserved;
};
static_assert(sizeof(ReleaseRegion) == 24);

// A communicator: a group of the job's ranks that runs collectives of its own, as a job of its
// own inside the agents (named from the job id and `key`, with the job's token). Its ranks are
// numbered node by node like a job's: rank = node * local_world_size + local_rank, nodes ordered
// as in the job. The shim maps its callers' group ranks onto these. `node` is this rank's node
// in the job (rank / local_world_size of the job): the agent of the job's node 0 hosts the
// communicator's rendezvous, whether or not it has members.
struct CommCreate {
  MsgHeader header;
  uint64_t key;  // the same on every member; names the communicator within the job
  int32_t rank;  // in the communicator, node by node
  int32_t world_size;
  int32_t local_rank;
  int32_t local_world_size;
  uint64_t reserved;  // must be 0
};
static_assert(sizeof(CommCreate) == 48);

struct CommDestroy {
  MsgHeader header;
  uint32_t comm;  // an id from kCommCreateReply
  uint32_t reserved;
};
static_assert(sizeof(CommDestroy) == 24);

// Goodbye.flags (version 13 on): the agent handed the client's job across nodes over to the next
// agent at its socket, which takes the client back as the same rank (kHelloHandedOver).
inline constexpr uint32_t kGoodbyeHandedOver = 1;

struct Goodbye {
  MsgHeader header;
  int32_t code;
  uint32_t flags;  // version 13 on; 0 before
  char message[kMessageBytes];
};
static_assert(sizeof(Goodbye) == 216);

// A job's generations (docs/elastic.md): after a rank or node is lost, or to admit a joiner, the
// surviving ranks and the joiners ask their agents for the next generation; the agents agree on
// its members, renumber them densely and move each client into it. kQuery only reports the
// client's generation and whether joiners wait to be admitted.
enum class ReformMode : uint32_t { kQuery = 0, kReform = 1 };
inline constexpr uint32_t kNumReformModes = 2;

struct Reform {
  MsgHeader header;
  uint32_t mode;        // ReformMode
  uint32_t timeout_ms;  // kReform: how long the agents may take to agree; 0: the agent's default
  uint64_t reserved;    // must be 0
};
static_assert(sizeof(Reform) == 32);

struct ReformReply {
  MsgHeader header;
  int32_t code;         // outrider::Code
  uint32_t generation;  // the client's generation (after a kReform: the new one)
  int32_t rank;         // the client's place in it
  int32_t world_size;
  int32_t local_rank;
  int32_t local_world_size;
  uint32_t joiners_waiting;    // joiners this agent holds for the job's next generation
  uint32_t flags;              // kReform* bits
  char root_addr[kAddrBytes];  // the agent of the generation's node 0 ("" in generation 0)
  char message[kMessageBytes];
};
static_assert(sizeof(ReformReply) == 304);

// ReformReply.flags: the generation's nodes run different numbers of ranks (a node kept its ranks
// when another lost one), so a rank's node is not rank / local_world_size; the shim learns the
// others' nodes from the job's ranks themselves.
inline constexpr uint32_t kReformUnevenNodes = 1;

// ---- Ring entries in the control segment. ----
struct BufferRef {
  uint32_t region_id;  // a region this client registered
  uint32_t reserved;
  uint64_t offset;  // bytes from the region start
  uint64_t length;  // bytes
};
static_assert(sizeof(BufferRef) == 24);

// Submission entry: shim -> agent. Names memory only by (region, offset, length).
struct SubmitEntry {
  uint64_t op_id;      // strictly increasing per client
  uint64_t key;        // collective key; (job, key, per-key seq) names one collective instance
  uint32_t kind;       // OpKind
  uint32_t dtype;      // DType
  uint32_t reduce_op;  // ReduceOp (allreduce, reduce-scatter)
  int32_t root;        // broadcast root: a job rank in [0, world_size), not a local rank
  int32_t priority;    // lower = sooner
  uint32_t flags;      // must be 0
  uint64_t count;  // elements: per rank (allgather), per rank result (reduce-scatter), else total
  BufferRef send;
  BufferRef recv;
  // alltoallv: int64 send_counts[world] then int64 recv_counts[world] (elements, rank order;
  // blocks are packed in rank order in send and recv). Sparse ops: the row ids (id_dtype).
  // Unused (all zero) otherwise.
  BufferRef aux;
  // Sparse ops only (all zero otherwise). count = dim, dtype = value dtype, send = values
  // (nnz x dim), recv = result values (capacity x dim; lookup: one row per requested id).
  uint64_t rows;      // table rows; ids must lie in [0, rows)
  uint32_t id_dtype;  // DType kI32 or kI64, for aux and out_ids
  uint32_t algo;      // SparseAlgo (allreduce) or ShardScheme (shard, lookup)
  BufferRef out_ids;  // result ids (capacity entries); unused by lookup
  // Sparse allreduce only: row ids (id_dtype) the rank's next forward pass needs first. Their
  // rows are exchanged ahead of the rest and written first; empty: no demand.
  BufferRef demand;
  uint32_t comm;   // 0: the job itself; else a communicator of this client (kCommCreate)
  uint32_t fence;  // flags has kSubmitFenced: the op's FenceSlot (< kFenceSlots); else 0
};
static_assert(sizeof(SubmitEntry) == 192);
// SubmitEntry.flags: the op waits for its fence (below) before the agent reads its inputs, and
// the agent signals the fence's `done` when it has written its outputs.
inline constexpr uint32_t kSubmitFenced = 1;
// SubmitEntry.flags: the shim refused the op itself (its caller has the reason). The entry names
// the op (op_id, key, kind, dtype, count, comm) and `root` holds the outrider::Code it was refused
// with; nothing else is read. The agent counts it in the key's sequence like any op and fails the
// collective on every other rank, so that this rank's next op of the key pairs with theirs.
inline constexpr uint32_t kSubmitRefused = 2;
static_assert(std::is_trivially_copyable_v<SubmitEntry>);

// Completion entry: agent -> shim.
struct CompletionEntry {
  uint64_t op_id;
  int32_t code;       // outrider::Code
  uint32_t algo;      // sparse allreduce: the SparseAlgo that ran
  uint64_t seq;       // per-key sequence number the agent assigned
  uint64_t agent_ns;  // time the agent spent from first submission to completion
  // Sparse ops: rows in the result (also when it did not fit: the capacity the op needs), this
  // node's predicted and measured inter-node bytes for the op (payload and headers).
  uint64_t result_rows;
  uint64_t predicted_bytes;
  uint64_t wire_bytes_sent;
  uint64_t wire_bytes_recv;
  uint32_t flags;  // kCompletionPartial: the op is still running (see below)
  int32_t source;  // kRecv: the sender's rank (in the op's communicator); else 0
  // Sparse allreduce with demand: the leading rows of the result that are demanded rows. A
  // partial completion says those rows are in the output already; the final one follows.
  uint64_t demand_rows;
  char message[256 - 80];
};
inline constexpr uint32_t kCompletionPartial = 1;
// The agent is handing its jobs over to the next agent and the op had not started (code
// UNAVAILABLE; its buffers are untouched): the client submits it again at the next agent. A client
// that does not know this flag sees the op fail.
inline constexpr uint32_t kCompletionMoved = 2;
static_assert(sizeof(CompletionEntry) == 256);
static_assert(std::is_trivially_copyable_v<CompletionEntry>);

// ---- Control segment: a memfd the agent creates per client and maps into both processes. ----
// Ring indices are free-running counters. Invariant (trusted side checks it on every read):
// tail - head <= entries.
struct alignas(64) RingIndices {
  alignas(64) uint64_t head;               // consumer position
  alignas(64) uint64_t tail;               // producer position
  alignas(64) uint32_t consumer_sleeping;  // 1 while the consumer may block on its eventfd
};
static_assert(sizeof(RingIndices) == 192);

// Fences order GPU ops on the client's stream without blocking its host thread
// (docs/design.md#gpu-path): one slot per fenced op in flight, chosen by the client, in the control
// segment after the rings. The client's side (its stream, through cuStreamWriteValue64) stores the
// op's id in `ready` once the op's inputs are in place; the agent reads nothing of the op before
// that. Once the op's outputs are written (or it failed), the agent stores its Code in `status`,
// then the op id in `done` (release), before the completion entry; the client's stream waits for
// `done` (cuStreamWaitValue64, GEQ). If the agent is gone, the shim stores them itself.
struct FenceSlot {
  uint64_t ready;  // the client's side writes, the agent reads
  uint64_t done;   // the agent writes (the shim, when the agent is gone)
  int32_t status;  // outrider::Code of the op, valid once `done` holds its id
  uint32_t reserved;
  uint64_t reserved2;
};
static_assert(sizeof(FenceSlot) == 32);
inline constexpr uint32_t kFenceSlots = 1024;

struct ControlHeader {
  uint32_t magic;
  uint16_t version;
  // 0 while the agent serves the client; kDepartureHandedOver, stored (release) before a goodbye
  // with kGoodbyeHandedOver: the shim's fence watchdog, which sees only the socket hang up, then
  // keeps the streams waiting for the next agent instead of letting them go.
  uint16_t departure;
  uint32_t sq_entries;  // power of two
  uint32_t cq_entries;  // power of two
  uint64_t sq_indices_offset;
  uint64_t sq_slots_offset;
  uint64_t cq_indices_offset;
  uint64_t cq_slots_offset;
  uint64_t total_bytes;
  uint64_t fences_offset;  // kFenceSlots FenceSlots
};
static_assert(sizeof(ControlHeader) == 64);
inline constexpr uint16_t kDepartureHandedOver = 1;

struct ControlLayout {
  uint64_t sq_indices_offset, sq_slots_offset, cq_indices_offset, cq_slots_offset, fences_offset,
      total_bytes;
};
ControlLayout ComputeControlLayout(uint32_t sq_entries, uint32_t cq_entries);
// Fills the header at the start of a control segment laid out as `layout` (the agent's side; the
// shim reads it back and checks it).
void InitControlHeader(ControlHeader* h, uint32_t sq_entries, uint32_t cq_entries,
                       const ControlLayout& layout, uint16_t version = kProtocolVersion);

// Fills a header; the reader checks it with ValidateControlHeader semantics in the shim.
void InitMsgHeader(MsgHeader* h, MsgType type, uint32_t body_bytes, uint32_t request_id,
                   uint16_t version = kProtocolVersion);
// Copies text into a fixed message field, truncating and always NUL-terminating.
void CopyText(char* dst, size_t cap, std::string_view text);
// 64-bit FNV-1a: op keys (shim) and job / agent-address hashes (agent).
uint64_t Fnv1a(const void* data, size_t len);

}  // namespace outrider::ipc
