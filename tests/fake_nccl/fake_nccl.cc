// A fake NCCL for tests on machines without a GPU (OUTRIDER_NCCL_LIBRARY=libfakenccl.so), over the
// fake CUDA driver (tests/fake_cuda): the entries loaders/nccl/library.h resolves, behaving as NCCL
// does where the agent depends on it.
//
// - A communicator is a shared-memory segment named by the unique id; its ranks are threads of
//   any processes that open it (the agents). Device pointers of the fake driver are addresses, so
//   a collective is a host function on the caller's stream (the "kernel"): it blocks that stream
//   until every rank ran the same collective, moving the data through the segment in chunks.
// - Non-blocking init (config.blocking = 0): ncclCommInitRankConfig returns ncclInProgress and
//   ncclCommGetAsyncError says ncclInProgress until every rank joined. Two ranks on one GPU (by
//   UUID) fail init with ncclInvalidUsage, as NCCL does.
// - Where NCCL would deadlock or corrupt memory, this one fails loudly: ranks that launch
//   different collectives at the same position of the communicator's order (kind, count, dtype,
//   op, root) all fail with ncclInvalidUsage naming both, and the communicator is dead.
// - A collective waits for its peers as long as it takes (as a kernel does) until the
//   communicator is aborted (ncclCommAbort, here or in a peer: ncclRemoteError) or a peer's
//   process is gone (ncclRemoteError naming the rank).
// - Groups (ncclGroupStart/End) defer launches to the outermost ncclGroupEnd. A group's
//   point-to-point calls (ncclSend/ncclRecv) on a communicator are one launch there, after its
//   collectives: every rank of the communicator must launch such a group at that position of the
//   order (as the agent's alltoallv does; NCCL only matches pairs), with at most one send to and
//   one receive from each peer. A send whose size differs from its receive fails every rank,
//   naming both, where NCCL would hang or write past the buffer.
//
// - Like NCCL, it exports every entry twice: strong as pnccl*, weak as nccl*.
//
// Environment: OUTRIDER_FAKE_NCCL_INIT_FAIL=1 (every init fails with ncclSystemError),
// OUTRIDER_FAKE_NCCL_VERSION (what ncclGetVersion says; default 22809).
#include <fcntl.h>
#include <nccl.h>
#include <signal.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "loaders/cuda/driver.h"

#define FAKE_API extern "C" __attribute__((visibility("default")))

namespace {

constexpr uint64_t kMagic = 0x4c43434e454b4146ull;  // "FAKENCCL"
constexpr int kMaxRanks = 64;
constexpr size_t kSlotBytes = size_t{1} << 20;  // each rank's staging space in the segment

struct IdBytes {
  uint64_t magic;
  uint64_t nonce;
};
static_assert(sizeof(IdBytes) <= NCCL_UNIQUE_ID_BYTES);

// What a rank launched at one position of the order.
struct Desc {
  int32_t kind;  // 1 allreduce, 2 broadcast, 3 allgather, 4 reduce-scatter, 5 point-to-point group
  int32_t dtype, op, root;
  uint64_t count;
};

struct RankSlot {
  std::atomic<int32_t> pid;
  char uuid[48];
  std::atomic<uint64_t> step;  // barriers passed
  Desc desc;
  uint64_t p2p_bytes;  // point-to-point: bytes this rank sends in the current round
};

struct Segment {
  uint64_t magic;
  int32_t nranks;
  std::atomic<int32_t> joined;
  std::atomic<int32_t> failed;  // ncclResult_t of the first failure, 0 while none
  std::atomic<int32_t> failing_rank;
  char why[512];
  RankSlot ranks[kMaxRanks];
};

size_t SegmentBytes(int nranks) {
  return sizeof(Segment) + static_cast<size_t>(nranks) * kSlotBytes;
}

// Thread-locals take static TLS: the library is dlopen'ed (see the fake driver's t_context).
[[gnu::tls_model("initial-exec")]] thread_local std::string t_last_error;

struct Comm {
  int nranks = 0, rank = 0;
  std::string name;
  Segment* seg = nullptr;
  uint8_t* slots = nullptr;
  std::atomic<int> state{ncclInProgress};  // what ncclCommGetAsyncError says
  std::atomic<bool> abort{false};
  std::mutex mu;
  std::string error;  // ncclGetLastError(comm)
  uint64_t step = 0;  // barriers this rank entered (its stream only)
  std::string uuid;
  std::thread init;

  uint8_t* Slot(int r) const { return slots + static_cast<size_t>(r) * kSlotBytes; }
  void Fail(ncclResult_t rc, const std::string& why, bool tell_peers) {
    {
      std::lock_guard<std::mutex> l(mu);
      if (error.empty()) error = why;
    }
    int expect = ncclSuccess;
    state.compare_exchange_strong(expect, rc);
    expect = ncclInProgress;
    state.compare_exchange_strong(expect, rc);
    if (tell_peers && seg != nullptr) {
      int none = 0;
      if (seg->failed.compare_exchange_strong(none, rc)) {
        seg->failing_rank.store(rank);
        std::snprintf(seg->why, sizeof(seg->why), "%s", why.c_str());
      }
    }
  }
  std::string Error() {
    std::lock_guard<std::mutex> l(mu);
    return error;
  }
  ~Comm() {
    if (init.joinable()) init.join();
    if (seg != nullptr) ::munmap(seg, SegmentBytes(nranks));
  }
};

// The handle NCCL gives out owns a reference: collectives still queued on a stream hold another.
struct Handle {
  std::shared_ptr<Comm> comm;
};

Comm* Of(ncclComm_t c) { return reinterpret_cast<Handle*>(c)->comm.get(); }

void Pause(int& spins) {
  if (++spins < 200) return;
  timespec ts{0, 50 * 1000};
  ::nanosleep(&ts, nullptr);
}

// Waits until every rank passed `step` barriers; false (the communicator failed) if it was
// aborted or a peer is gone.
bool Barrier(Comm& c) {
  ++c.step;
  c.seg->ranks[c.rank].step.store(c.step, std::memory_order_release);
  int spins = 0;
  for (;;) {
    bool all = true;
    for (int r = 0; r < c.nranks && all; ++r)
      all = c.seg->ranks[r].step.load(std::memory_order_acquire) >= c.step;
    if (all) return true;
    if (c.abort.load()) {
      c.Fail(ncclInvalidUsage, "the communicator was aborted", false);
      return false;
    }
    if (int f = c.seg->failed.load(); f != 0) {
      c.Fail(static_cast<ncclResult_t>(f == ncclInvalidUsage ? ncclInvalidUsage : ncclRemoteError),
             std::string("rank ") + std::to_string(c.seg->failing_rank.load()) + ": " + c.seg->why,
             false);
      return false;
    }
    if (spins % 2000 == 1999) {
      for (int r = 0; r < c.nranks; ++r) {
        int pid = c.seg->ranks[r].pid.load();
        if (r != c.rank && pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH) {
          c.Fail(ncclRemoteError,
                 "rank " + std::to_string(r) + " (process " + std::to_string(pid) + ") is gone",
                 true);
          return false;
        }
      }
    }
    Pause(spins);
  }
}

size_t Size(ncclDataType_t t) {
  switch (t) {
    case ncclInt8:
    case ncclUint8:
      return 1;
    case ncclFloat16:
    case ncclBfloat16:
      return 2;
    case ncclInt32:
    case ncclUint32:
    case ncclFloat32:
      return 4;
    case ncclInt64:
    case ncclUint64:
    case ncclFloat64:
      return 8;
    default:
      return 0;
  }
}

float FromBf16(uint16_t v) {
  uint32_t b = uint32_t{v} << 16;
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
uint16_t ToBf16(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  b += 0x7fff + ((b >> 16) & 1);  // round to nearest even
  return static_cast<uint16_t>(b >> 16);
}

template <typename T>
T Apply(ncclRedOp_t op, T a, T b) {
  switch (op) {
    case ncclProd:
      return static_cast<T>(a * b);
    case ncclMax:
      return a > b ? a : b;
    case ncclMin:
      return a < b ? a : b;
    default:
      return static_cast<T>(a + b);
  }
}

// out[i] = in_0[i] op in_1[i] op ... (ranks in order, as NCCL's result is the same on every rank).
template <typename T>
void ReduceTyped(const std::vector<const uint8_t*>& in, uint8_t* out, size_t n, ncclRedOp_t op) {
  for (size_t i = 0; i < n; ++i) {
    T acc;
    std::memcpy(&acc, in[0] + i * sizeof(T), sizeof(T));
    for (size_t r = 1; r < in.size(); ++r) {
      T v;
      std::memcpy(&v, in[r] + i * sizeof(T), sizeof(T));
      acc = Apply(op, acc, v);
    }
    if (op == ncclAvg) acc = static_cast<T>(acc / static_cast<T>(in.size()));
    std::memcpy(out + i * sizeof(T), &acc, sizeof(T));
  }
}

bool Reduce(const std::vector<const uint8_t*>& in, uint8_t* out, size_t n, ncclDataType_t t,
            ncclRedOp_t op) {
  switch (t) {
    case ncclInt8:
      ReduceTyped<int8_t>(in, out, n, op);
      return true;
    case ncclUint8:
      ReduceTyped<uint8_t>(in, out, n, op);
      return true;
    case ncclInt32:
      ReduceTyped<int32_t>(in, out, n, op);
      return true;
    case ncclUint32:
      ReduceTyped<uint32_t>(in, out, n, op);
      return true;
    case ncclInt64:
      ReduceTyped<int64_t>(in, out, n, op);
      return true;
    case ncclUint64:
      ReduceTyped<uint64_t>(in, out, n, op);
      return true;
    case ncclFloat32:
      ReduceTyped<float>(in, out, n, op);
      return true;
    case ncclFloat64:
      ReduceTyped<double>(in, out, n, op);
      return true;
    case ncclBfloat16: {
      std::vector<float> acc(n);
      std::vector<uint8_t> wide(n * 4);
      std::vector<std::vector<uint8_t>> widened(in.size(), std::vector<uint8_t>(n * 4));
      std::vector<const uint8_t*> w;
      for (size_t r = 0; r < in.size(); ++r) {
        for (size_t i = 0; i < n; ++i) {
          uint16_t v;
          std::memcpy(&v, in[r] + 2 * i, 2);
          float f = FromBf16(v);
          std::memcpy(widened[r].data() + 4 * i, &f, 4);
        }
        w.push_back(widened[r].data());
      }
      ReduceTyped<float>(w, wide.data(), n, op);
      for (size_t i = 0; i < n; ++i) {
        float f;
        std::memcpy(&f, wide.data() + 4 * i, 4);
        uint16_t v = ToBf16(f);
        std::memcpy(out + 2 * i, &v, 2);
      }
      return true;
    }
    default:
      return false;  // float16 and the 8-bit floats: not in the fake
  }
}

const char* KindName(int kind) {
  switch (kind) {
    case 1:
      return "allreduce";
    case 2:
      return "broadcast";
    case 3:
      return "allgather";
    case 4:
      return "reduce-scatter";
    case 5:
      return "point-to-point group";
    default:
      return "?";
  }
}

std::string Describe(const Desc& d) {
  return std::string(KindName(d.kind)) + " of " + std::to_string(d.count) + " (dtype " +
         std::to_string(d.dtype) + ", op " + std::to_string(d.op) + ", root " +
         std::to_string(d.root) + ")";
}

// One side of a point-to-point transfer in a group: the peer, the memory, its bytes.
struct P2p {
  int peer;
  uint8_t* data;
  size_t bytes;
};

struct Call {
  std::shared_ptr<Comm> comm;
  Desc desc;
  const uint8_t* send;
  uint8_t* recv;
  std::vector<P2p> sends, recvs;  // kind 5
};

const P2p* With(const std::vector<P2p>& v, int peer) {
  for (const P2p& p : v) {
    if (p.peer == peer) return &p;
  }
  return nullptr;
}

// A point-to-point group: in round k every rank sends to rank + k and receives from rank - k,
// through its slot, in chunks; each round first publishes the bytes every rank sends in it.
void RunP2p(Call& call) {
  Comm& c = *call.comm;
  for (int k = 0; k < c.nranks; ++k) {
    int to = (c.rank + k) % c.nranks, from = (c.rank - k + c.nranks) % c.nranks;
    const P2p* send = With(call.sends, to);
    const P2p* recv = With(call.recvs, from);
    c.seg->ranks[c.rank].p2p_bytes = send != nullptr ? send->bytes : 0;
    if (!Barrier(c)) return;
    uint64_t most = 0;
    for (int r = 0; r < c.nranks; ++r) most = std::max<uint64_t>(most, c.seg->ranks[r].p2p_bytes);
    uint64_t coming = c.seg->ranks[from].p2p_bytes, expected = recv != nullptr ? recv->bytes : 0;
    if (coming != expected) {
      c.Fail(ncclInvalidUsage,
             "rank " + std::to_string(from) + " sends " + std::to_string(coming) +
                 " bytes to rank " + std::to_string(c.rank) + ", which receives " +
                 std::to_string(expected),
             true);
      return;
    }
    if (!Barrier(c)) return;  // every rank read the sizes before the next round overwrites them
    for (uint64_t lo = 0; lo < most; lo += kSlotBytes) {
      if (send != nullptr && lo < send->bytes)
        std::memcpy(c.Slot(c.rank), send->data + lo,
                    std::min<uint64_t>(kSlotBytes, send->bytes - lo));
      if (!Barrier(c)) return;
      if (recv != nullptr && lo < recv->bytes)
        std::memcpy(recv->data + lo, c.Slot(from),
                    std::min<uint64_t>(kSlotBytes, recv->bytes - lo));
      if (!Barrier(c)) return;
    }
  }
}

// The collective, on the stream: every rank runs the same sequence of barriers while the
// communicator's ranks agree on what they launched.
void Run(Call& call) {
  Comm& c = *call.comm;
  if (c.state.load() != ncclSuccess) return;  // a failed communicator launches nothing
  const Desc& d = call.desc;
  c.seg->ranks[c.rank].desc = d;
  if (!Barrier(c)) return;
  for (int r = 0; r < c.nranks; ++r) {
    const Desc& o = c.seg->ranks[r].desc;
    if (o.kind != d.kind || o.count != d.count || o.dtype != d.dtype || o.op != d.op ||
        o.root != d.root) {
      c.Fail(ncclInvalidUsage,
             "ranks launched different collectives at position " + std::to_string(c.step) +
                 " of the order: rank " + std::to_string(c.rank) + " " + Describe(d) + ", rank " +
                 std::to_string(r) + " " + Describe(o),
             true);
      return;
    }
  }
  if (d.kind == 5) return RunP2p(call);
  size_t elt = Size(static_cast<ncclDataType_t>(d.dtype));
  auto dtype = static_cast<ncclDataType_t>(d.dtype);
  auto op = static_cast<ncclRedOp_t>(d.op);
  size_t per =
      d.kind == 4 ? static_cast<size_t>(c.nranks) : 1;  // chunks of each rank's block in a slot
  size_t chunk = kSlotBytes / (elt * per);
  bool any = false;
  for (size_t lo = 0; lo < d.count; lo += chunk) {
    any = true;
    size_t n = std::min<size_t>(chunk, d.count - lo);
    uint8_t* mine = c.Slot(c.rank);
    switch (d.kind) {
      case 1:
      case 3:
        std::memcpy(mine, call.send + lo * elt, n * elt);
        break;
      case 2:
        if (c.rank == d.root) std::memcpy(mine, call.send + lo * elt, n * elt);
        break;
      case 4:
        for (int r = 0; r < c.nranks; ++r)
          std::memcpy(mine + r * n * elt, call.send + (r * d.count + lo) * elt, n * elt);
        break;
    }
    if (!Barrier(c)) return;
    std::vector<const uint8_t*> in;
    switch (d.kind) {
      case 1:
        for (int r = 0; r < c.nranks; ++r) in.push_back(c.Slot(r));
        Reduce(in, call.recv + lo * elt, n, dtype, op);
        break;
      case 2:
        std::memcpy(call.recv + lo * elt, c.Slot(d.root), n * elt);
        break;
      case 3:
        for (int r = 0; r < c.nranks; ++r)
          std::memcpy(call.recv + (r * d.count + lo) * elt, c.Slot(r), n * elt);
        break;
      case 4:
        for (int r = 0; r < c.nranks; ++r) in.push_back(c.Slot(r) + c.rank * n * elt);
        Reduce(in, call.recv + lo * elt, n, dtype, op);
        break;
    }
    if (!Barrier(c)) return;
  }
  if (!any) Barrier(c);
}

struct Group {
  int depth = 0;
  std::vector<std::function<void()>> launches;
  std::vector<std::pair<std::shared_ptr<Call>, cudaStream_t>> p2p;  // one call per communicator
};
[[gnu::tls_model("initial-exec")]] thread_local Group t_group;

// Queues `call` on `stream` as the collective's "kernel".
void Enqueue(const std::shared_ptr<Call>& call, cudaStream_t stream) {
  auto d = outrider::cuda::Load();
  if (!d.ok()) return;
  auto* held = new std::shared_ptr<Call>(call);
  CUresult rc = (*d)->cuLaunchHostFunc(
      reinterpret_cast<CUstream>(stream),
      [](void* p) {
        auto* h = static_cast<std::shared_ptr<Call>*>(p);
        Run(**h);
        delete h;
      },
      held);
  if (rc != CUDA_SUCCESS) {
    delete held;
    call->comm->Fail(ncclUnhandledCudaError, "cuLaunchHostFunc failed: " + std::to_string(rc),
                     false);
  }
}

ncclResult_t PointToPoint(bool is_send, void* data, size_t count, ncclDataType_t dtype, int peer,
                          ncclComm_t comm, cudaStream_t stream) {
  if (comm == nullptr) return ncclInvalidArgument;
  std::shared_ptr<Comm> c = reinterpret_cast<Handle*>(comm)->comm;
  if (int s = c->state.load(); s != ncclSuccess) {
    t_last_error = s == ncclInProgress ? "the communicator is still initializing" : c->Error();
    return s == ncclInProgress ? ncclInvalidUsage : static_cast<ncclResult_t>(s);
  }
  if (Size(dtype) == 0 || peer < 0 || peer >= c->nranks) {
    t_last_error = "bad dtype or peer";
    return ncclInvalidArgument;
  }
  std::shared_ptr<Call> call;
  for (auto& [pending, s] : t_group.p2p) {
    if (pending->comm == c) {
      if (s != stream) {
        t_last_error =
            "the fake NCCL takes a group's point-to-point calls on one stream per communicator";
        return ncclInvalidUsage;
      }
      call = pending;
    }
  }
  if (call == nullptr) {
    call = std::make_shared<Call>(Call{c, Desc{5, ncclUint8, 0, 0, 0}, nullptr, nullptr, {}, {}});
    t_group.p2p.emplace_back(call, stream);
  }
  std::vector<P2p>& side = is_send ? call->sends : call->recvs;
  if (With(side, peer) != nullptr) {
    t_last_error = "the fake NCCL takes one send to and one receive from each peer in a group";
    return ncclInvalidUsage;
  }
  side.push_back({peer, static_cast<uint8_t*>(data), count * Size(dtype)});
  if (t_group.depth == 0) {  // alone: a group of one
    auto p2p = std::move(t_group.p2p);
    t_group.p2p.clear();
    for (auto& [pending, s] : p2p) Enqueue(pending, s);
  }
  return ncclSuccess;
}

ncclResult_t Launch(ncclComm_t comm, int kind, const void* send, void* recv, size_t count,
                    ncclDataType_t dtype, ncclRedOp_t op, int root, cudaStream_t stream) {
  if (comm == nullptr) return ncclInvalidArgument;
  std::shared_ptr<Comm> c = reinterpret_cast<Handle*>(comm)->comm;
  if (int s = c->state.load(); s != ncclSuccess) {
    t_last_error = s == ncclInProgress ? "the communicator is still initializing" : c->Error();
    return s == ncclInProgress ? ncclInvalidUsage : static_cast<ncclResult_t>(s);
  }
  if (Size(dtype) == 0 || ((kind == 1 || kind == 4) && dtype != ncclBfloat16 && Size(dtype) == 2)) {
    t_last_error = "the fake NCCL has no dtype " + std::to_string(dtype);
    return ncclInvalidArgument;
  }
  if (kind == 2 && (root < 0 || root >= c->nranks)) return ncclInvalidArgument;
  auto call = std::make_shared<Call>(Call{c,
                                          Desc{kind, dtype, op, root, count},
                                          static_cast<const uint8_t*>(send),
                                          static_cast<uint8_t*>(recv),
                                          {},
                                          {}});
  auto launch = [call, stream] { Enqueue(call, stream); };
  if (t_group.depth > 0) {
    t_group.launches.push_back(std::move(launch));
  } else {
    launch();
  }
  return ncclSuccess;
}

void Join(const std::shared_ptr<Comm>& c, IdBytes id) {
  if (const char* f = std::getenv("OUTRIDER_FAKE_NCCL_INIT_FAIL"); f != nullptr && *f == '1') {
    c->Fail(ncclSystemError, "injected init failure (OUTRIDER_FAKE_NCCL_INIT_FAIL)", false);
    return;
  }
  char name[64];
  std::snprintf(name, sizeof(name), "/outrider-fake-nccl-%016llx",
                static_cast<unsigned long long>(id.nonce));
  c->name = name;
  int fd = ::shm_open(name, O_RDWR | O_CREAT, 0600);
  if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(SegmentBytes(c->nranks))) != 0) {
    if (fd >= 0) ::close(fd);
    c->Fail(ncclSystemError, std::string("shm_open ") + name + ": " + std::strerror(errno), false);
    return;
  }
  void* m = ::mmap(nullptr, SegmentBytes(c->nranks), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (m == MAP_FAILED) {
    c->Fail(ncclSystemError, "mmap of the communicator's segment failed", false);
    return;
  }
  c->seg = static_cast<Segment*>(m);
  c->slots = reinterpret_cast<uint8_t*>(c->seg) + sizeof(Segment);
  RankSlot& me = c->seg->ranks[c->rank];
  std::snprintf(me.uuid, sizeof(me.uuid), "%s", c->uuid.c_str());
  me.pid.store(::getpid());
  if (c->seg->joined.fetch_add(1) + 1 == c->nranks) ::shm_unlink(name);  // every rank has it mapped
  int spins = 0;
  while (c->seg->joined.load() < c->nranks) {
    if (c->abort.load()) {
      c->Fail(ncclInvalidUsage, "aborted during init", false);
      return;
    }
    Pause(spins);
  }
  for (int r = 0; r < c->nranks; ++r) {
    if (r != c->rank && c->uuid == c->seg->ranks[r].uuid) {
      c->Fail(ncclInvalidUsage,
              "Duplicate GPU detected : rank " + std::to_string(c->rank) + " and rank " +
                  std::to_string(r) + " both on " + c->uuid,
              false);
      return;
    }
  }
  int expect = ncclInProgress;
  c->state.compare_exchange_strong(expect, ncclSuccess);
}

}  // namespace

FAKE_API ncclResult_t pncclGetVersion(int* version) {
  const char* v = std::getenv("OUTRIDER_FAKE_NCCL_VERSION");
  *version = v != nullptr ? std::atoi(v) : 22809;
  return ncclSuccess;
}

FAKE_API ncclResult_t pncclGetUniqueId(ncclUniqueId* id) {
  std::memset(id, 0, sizeof(*id));
  std::random_device rd;
  IdBytes b{kMagic, (uint64_t{rd()} << 32) ^ rd() ^ static_cast<uint64_t>(::getpid())};
  std::memcpy(id->internal, &b, sizeof(b));
  return ncclSuccess;
}

FAKE_API const char* ncclGetErrorString(ncclResult_t r) {
  switch (r) {
    case ncclSuccess:
      return "no error";
    case ncclUnhandledCudaError:
      return "unhandled cuda error";
    case ncclSystemError:
      return "unhandled system error";
    case ncclInternalError:
      return "internal error";
    case ncclInvalidArgument:
      return "invalid argument";
    case ncclInvalidUsage:
      return "invalid usage";
    case ncclRemoteError:
      return "remote process exited or there was a network error";
    case ncclInProgress:
      return "NCCL operation in progress";
    default:
      return "unknown result code";
  }
}

FAKE_API const char* ncclGetLastError(ncclComm_t comm) {
  [[gnu::tls_model("initial-exec")]] static thread_local std::string text;
  text = comm != nullptr ? Of(comm)->Error() : t_last_error;
  return text.c_str();
}

FAKE_API ncclResult_t pncclCommInitRankConfig(ncclComm_t* out, int nranks, ncclUniqueId id,
                                              int rank, ncclConfig_t* config) {
  IdBytes b;
  std::memcpy(&b, id.internal, sizeof(b));
  if (b.magic != kMagic || nranks < 1 || nranks > kMaxRanks || rank < 0 || rank >= nranks) {
    t_last_error = "bad unique id, rank or size";
    return ncclInvalidArgument;
  }
  auto d = outrider::cuda::Load();
  if (!d.ok()) {
    t_last_error = d.status().message();
    return ncclUnhandledCudaError;
  }
  CUdevice dev = 0;
  CUuuid uuid{};
  if ((*d)->cuCtxGetDevice(&dev) != CUDA_SUCCESS ||
      (*d)->cuDeviceGetUuid(&uuid, dev) != CUDA_SUCCESS) {
    t_last_error = "no current CUDA context";
    return ncclUnhandledCudaError;
  }
  auto c = std::make_shared<Comm>();
  c->nranks = nranks;
  c->rank = rank;
  c->uuid = outrider::cuda::UuidString(uuid);
  bool blocking = config == nullptr || config->blocking != 0;
  *out = reinterpret_cast<ncclComm_t>(new Handle{c});
  if (blocking) {
    Join(c, b);
    return static_cast<ncclResult_t>(c->state.load());
  }
  c->init = std::thread([c, b] { Join(c, b); });
  return ncclInProgress;
}

FAKE_API ncclResult_t pncclCommGetAsyncError(ncclComm_t comm, ncclResult_t* err) {
  if (comm == nullptr) return ncclInvalidArgument;
  *err = static_cast<ncclResult_t>(Of(comm)->state.load());
  return ncclSuccess;
}

FAKE_API ncclResult_t pncclCommFinalize(ncclComm_t comm) {
  return comm == nullptr ? ncclInvalidArgument : ncclSuccess;
}

FAKE_API ncclResult_t pncclCommDestroy(ncclComm_t comm) {
  if (comm == nullptr) return ncclInvalidArgument;
  Comm* c = Of(comm);
  c->abort.store(true);
  if (c->init.joinable()) c->init.join();
  delete reinterpret_cast<Handle*>(comm);
  return ncclSuccess;
}

FAKE_API ncclResult_t pncclCommAbort(ncclComm_t comm) {
  if (comm == nullptr) return ncclSuccess;
  Comm* c = Of(comm);
  c->abort.store(true);
  if (c->init.joinable()) c->init.join();
  c->Fail(ncclRemoteError, "rank " + std::to_string(c->rank) + " aborted the communicator", true);
  delete reinterpret_cast<Handle*>(comm);
  return ncclSuccess;
}

FAKE_API ncclResult_t pncclCommCount(const ncclComm_t comm, int* count) {
  *count = Of(comm)->nranks;
  return ncclSuccess;
}

FAKE_API ncclResult_t pncclCommUserRank(const ncclComm_t comm, int* rank) {
  *rank = Of(comm)->rank;
  return ncclSuccess;
}

FAKE_API ncclResult_t pncclGroupStart() {
  ++t_group.depth;
  return ncclSuccess;
}

FAKE_API ncclResult_t pncclGroupEnd() {
  if (t_group.depth == 0) return ncclInvalidUsage;
  if (--t_group.depth == 0) {
    auto launches = std::move(t_group.launches);
    auto p2p = std::move(t_group.p2p);
    t_group.launches.clear();
    t_group.p2p.clear();
    for (auto& l : launches) l();
    for (auto& [call, stream] : p2p) Enqueue(call, stream);
  }
  return ncclSuccess;
}

FAKE_API ncclResult_t pncclAllReduce(const void* send, void* recv, size_t count,
                                     ncclDataType_t dtype, ncclRedOp_t op, ncclComm_t comm,
                                     cudaStream_t stream) {
  return Launch(comm, 1, send, recv, count, dtype, op, 0, stream);
}

FAKE_API ncclResult_t pncclBroadcast(const void* send, void* recv, size_t count,
                                     ncclDataType_t dtype, int root, ncclComm_t comm,
                                     cudaStream_t stream) {
  return Launch(comm, 2, send, recv, count, dtype, ncclSum, root, stream);
}

FAKE_API ncclResult_t pncclAllGather(const void* send, void* recv, size_t count,
                                     ncclDataType_t dtype, ncclComm_t comm, cudaStream_t stream) {
  return Launch(comm, 3, send, recv, count, dtype, ncclSum, 0, stream);
}

FAKE_API ncclResult_t pncclReduceScatter(const void* send, void* recv, size_t count,
                                         ncclDataType_t dtype, ncclRedOp_t op, ncclComm_t comm,
                                         cudaStream_t stream) {
  return Launch(comm, 4, send, recv, count, dtype, op, 0, stream);
}

FAKE_API ncclResult_t pncclSend(const void* send, size_t count, ncclDataType_t dtype, int peer,
                                ncclComm_t comm, cudaStream_t stream) {
  return PointToPoint(true, const_cast<void*>(send), count, dtype, peer, comm, stream);
}

FAKE_API ncclResult_t pncclRecv(void* recv, size_t count, ncclDataType_t dtype, int peer,
                                ncclComm_t comm, cudaStream_t stream) {
  return PointToPoint(false, recv, count, dtype, peer, comm, stream);
}

// Entries NCCL has that the agent does not use, for programs run against this library (the
// interposer's tests). ncclBcast goes through the public ncclBroadcast, as a library calling its
// own API does: an interposer sees that call too.
FAKE_API ncclResult_t pncclCommInitRank(ncclComm_t* out, int nranks, ncclUniqueId id, int rank) {
  return pncclCommInitRankConfig(out, nranks, id, rank, nullptr);
}

FAKE_API ncclResult_t pncclBcast(void* buff, size_t count, ncclDataType_t dtype, int root,
                                 ncclComm_t comm, cudaStream_t stream) {
  return ncclBroadcast(buff, buff, count, dtype, root, comm, stream);
}

// As NCCL exports them: every entry strong as pnccl*, and weak as nccl* (so that a library put
// before this one, with LD_PRELOAD, takes the nccl* names and still reaches these).
#define FAKE_WEAK(name)                                  \
  extern "C" __attribute__((visibility("default"), weak, \
                            alias("pnccl" #name))) decltype(pnccl##name) nccl##name;
FAKE_WEAK(GetVersion)
FAKE_WEAK(GetUniqueId)
FAKE_WEAK(CommInitRankConfig)
FAKE_WEAK(CommGetAsyncError)
FAKE_WEAK(CommFinalize)
FAKE_WEAK(CommDestroy)
FAKE_WEAK(CommAbort)
FAKE_WEAK(CommCount)
FAKE_WEAK(CommUserRank)
FAKE_WEAK(GroupStart)
FAKE_WEAK(GroupEnd)
FAKE_WEAK(AllReduce)
FAKE_WEAK(Broadcast)
FAKE_WEAK(AllGather)
FAKE_WEAK(ReduceScatter)
FAKE_WEAK(Send)
FAKE_WEAK(Recv)
FAKE_WEAK(CommInitRank)
FAKE_WEAK(Bcast)
