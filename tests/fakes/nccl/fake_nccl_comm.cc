// A fake NCCL for tests on machines without a GPU (OUTRIDER_NCCL_LIBRARY=libfakenccl.so), over the
// fake CUDA driver (tests/fakes/cuda/): the entries loaders/nccl/library.h resolves, behaving as
// NCCL does where the agent depends on it.
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
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

#include "loaders/cuda/driver.h"
#include "tests/fakes/nccl/fake_nccl_internal.h"

namespace outrider::fake_nccl {

[[gnu::tls_model("initial-exec")]] thread_local std::string t_last_error;

void Pause(int& spins) {
  if (++spins < 200) return;
  timespec ts{0, 50 * 1000};
  ::nanosleep(&ts, nullptr);
}

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

}  // namespace outrider::fake_nccl

using namespace outrider::fake_nccl;

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

// Entries NCCL has that the agent does not use, for programs run against this library (the
// interposer's tests). ncclBcast goes through the public ncclBroadcast, as a library calling its
// own API does: an interposer sees that call too.
FAKE_API ncclResult_t pncclCommInitRank(ncclComm_t* out, int nranks, ncclUniqueId id, int rank) {
  return pncclCommInitRankConfig(out, nranks, id, rank, nullptr);
}

FAKE_WEAK(GetVersion)
FAKE_WEAK(GetUniqueId)
FAKE_WEAK(CommInitRankConfig)
FAKE_WEAK(CommGetAsyncError)
FAKE_WEAK(CommFinalize)
FAKE_WEAK(CommDestroy)
FAKE_WEAK(CommAbort)
FAKE_WEAK(CommCount)
FAKE_WEAK(CommUserRank)
FAKE_WEAK(CommInitRank)
