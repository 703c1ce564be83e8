// liboutrider_nccl.so: NCCL's API, interposed with LD_PRELOAD (DESIGN §10, README "Unmodified
// trainers"). Every wrapped call goes on to the real NCCL's strong pnccl* entry point (found with
// dlsym(RTLD_NEXT), else in dlopen("libnccl.so.2")), and is counted for the node's agent: calls
// and bytes per communicator and kind, and the GPU time between CUDA events recorded around it on
// the caller's stream (read later, never waited for; not under CUDA graph capture; a group of
// calls is timed once, under its first call's kind). Calls NCCL makes to its own API from inside
// a wrapped call pass straight through, uncounted.
//
// A trainer whose NCCL is linked statically has nothing to interpose: the process then says so on
// stderr (at start for the executable, at exit for a library) if no call reached this library.
// OUTRIDER_NCCL_QUIET (any value) silences that.
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <nccl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "ipc/cuda/driver.h"
#include "shim/nccl/telemetry.h"

#define OUTRIDER_NCCL_API extern "C" __attribute__((visibility("default")))

namespace outrider::shim {
namespace {

using ipc::NcclOp;

// --- the real NCCL -------------------------------------------------------------------------------

#define OUTRIDER_WRAPPED(X)                                                                             \
  X(CommInitRank) X(CommInitRankConfig) X(CommInitRankScalable) X(CommInitAll) X(CommSplit)           \
  X(CommShrink) X(CommFinalize) X(CommDestroy) X(CommAbort) X(AllReduce) X(Broadcast) X(Bcast) X(Reduce) \
  X(AllGather) X(ReduceScatter) X(AlltoAll) X(Gather) X(Scatter) X(Send) X(Recv) X(GroupStart) X(GroupEnd)

// Not wrapped, but called here: looked up the same way (the application's NCCL may have been
// loaded where plain symbol lookup from here does not see it).
#define OUTRIDER_USED(X) X(CommCount) X(CommUserRank)

struct Real {
#define OUTRIDER_REAL_MEMBER(name) decltype(&::pnccl##name) name = nullptr;
  OUTRIDER_WRAPPED(OUTRIDER_REAL_MEMBER)
  OUTRIDER_USED(OUTRIDER_REAL_MEMBER)
#undef OUTRIDER_REAL_MEMBER
};

void Say(const std::string& what) { std::fprintf(stderr, "outrider-nccl: %s\n", what.c_str()); }

const Real& TheReal() {
  static const Real real = [] {
    Real r;
    void* lib = nullptr;
    auto find = [&lib](const char* name) -> void* {
      void* f = ::dlsym(RTLD_NEXT, name);
      if (f == nullptr) {
        if (lib == nullptr) lib = ::dlopen("libnccl.so.2", RTLD_NOW | RTLD_GLOBAL);
        if (lib != nullptr) f = ::dlsym(lib, name);
      }
      return f;
    };
#define OUTRIDER_REAL_FIND(name) r.name = reinterpret_cast<decltype(r.name)>(find("pnccl" #name));
    OUTRIDER_WRAPPED(OUTRIDER_REAL_FIND)
    OUTRIDER_USED(OUTRIDER_REAL_FIND)
#undef OUTRIDER_REAL_FIND
    if (r.AllReduce == nullptr) {
      Say("no NCCL to pass calls to: neither a loaded library nor libnccl.so.2 has pncclAllReduce "
          "(NCCL 2.x exports it); NCCL calls fail with ncclSystemError");
    }
    return r;
  }();
  return real;
}

// --- what is counted ---------------------------------------------------------------------------

NcclTelemetry& Telemetry() {
  static auto* t = new NcclTelemetry(ipc::NcclSource::kInterposer);  // flushed at exit (below)
  return *t;
}

std::atomic<uint64_t> g_calls{0};  // calls that reached a wrapper (the static-NCCL check)
thread_local int t_inside = 0;     // > 0 inside a wrapped call: NCCL's own API calls pass through
thread_local int t_group = 0;      // ncclGroupStart depth

struct Comms {
  std::mutex mu;
  std::unordered_map<ncclComm_t, NcclTelemetry::Comm*> by_handle;
  std::unordered_map<uint64_t, uint64_t> splits;  // parent id -> splits made from it so far
};
Comms& TheComms() {
  static auto* c = new Comms;
  return *c;
}

NcclTelemetry::Comm* CommOf(ncclComm_t comm) {
  Comms& cs = TheComms();
  std::lock_guard<std::mutex> l(cs.mu);
  auto it = cs.by_handle.find(comm);
  return it == cs.by_handle.end() ? nullptr : it->second;
}

uint64_t CommId(ncclComm_t comm) {
  NcclTelemetry::Comm* c = CommOf(comm);
  return c != nullptr ? NcclTelemetry::Id(c) : 0;
}

// The number of ranks of `comm` (1 if NCCL cannot say).
int Ranks(ncclComm_t comm) {
  int n = 1;
  if (TheReal().CommCount == nullptr || TheReal().CommCount(comm, &n) != ncclSuccess || n < 1) n = 1;
  return n;
}

// Counts the calls on a communicator made by the application (not by NCCL inside a wrapped call).
void Track(ncclComm_t comm, uint64_t id) {
  if (comm == nullptr || t_inside > 0) return;
  int rank = -1;
  if (TheReal().CommUserRank != nullptr) (void)TheReal().CommUserRank(comm, &rank);
  int nranks = Ranks(comm);
  NcclTelemetry::Comm* c = Telemetry().Track(id, rank, nranks);
  Comms& cs = TheComms();
  std::lock_guard<std::mutex> l(cs.mu);
  cs.by_handle[comm] = c;
}

void Untrack(ncclComm_t comm) {
  NcclTelemetry::Comm* c = nullptr;
  {
    Comms& cs = TheComms();
    std::lock_guard<std::mutex> l(cs.mu);
    auto it = cs.by_handle.find(comm);
    if (it == cs.by_handle.end()) return;
    c = it->second;
    cs.by_handle.erase(it);
  }
  Telemetry().Forget(c);
}

size_t DtypeBytes(ncclDataType_t t) {
  switch (t) {
    case ncclInt8: case ncclUint8: return 1;
    case ncclFloat16: case ncclBfloat16: return 2;
    case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
    case ncclInt64: case ncclUint64: case ncclFloat64: return 8;
    default: return 1;  // fp8 kinds
  }
}

// --- GPU time: CUDA events around the call, read once they completed ----------------------------

struct Timing {
  CUevent start = nullptr, end = nullptr;
  CUstream stream = nullptr;
  NcclTelemetry::Comm* comm = nullptr;
  NcclOp op = NcclOp::kAllReduce;
};

struct Timer {
  std::mutex mu;
  const cuda::Driver* d = nullptr;
  bool tried = false;
  std::deque<Timing> pending;      // end recorded, oldest first
  std::vector<CUevent> spare;
};
Timer& TheTimer() {
  static auto* t = new Timer;
  return *t;
}
thread_local std::vector<Timing> t_group_timings;  // started inside the current group

const cuda::Driver* Driver(Timer& t) {
  if (!t.tried) {
    t.tried = true;
    auto d = cuda::Load();
    if (d.ok()) t.d = *d;
  }
  return t.d;
}

CUevent NewEvent(Timer& t) {
  if (!t.spare.empty()) {
    CUevent e = t.spare.back();
    t.spare.pop_back();
    return e;
  }
  CUevent e = nullptr;
  return t.d->cuEventCreate(&e, CU_EVENT_DEFAULT) == CUDA_SUCCESS ? e : nullptr;
}

// Reads the times of calls whose end event completed (oldest first; stops at the first still
// running). Timer's mutex held.
void HarvestLocked(Timer& t) {
  while (!t.pending.empty()) {
    Timing& x = t.pending.front();
    CUresult rc = t.d->cuEventQuery(x.end);
    if (rc == CUDA_ERROR_NOT_READY) break;
    float ms = 0;
    if (rc == CUDA_SUCCESS && t.d->cuEventElapsedTime(&ms, x.start, x.end) == CUDA_SUCCESS && ms >= 0) {
      Telemetry().Time(x.comm, x.op, static_cast<uint64_t>(static_cast<double>(ms) * 1e6));
    }
    t.spare.push_back(x.start);
    t.spare.push_back(x.end);
    t.pending.pop_front();
  }
}

// Starts timing a call on `stream` (not under capture): false if it is not timed.
bool StartTiming(Timing* x, cudaStream_t stream) {
  Timer& t = TheTimer();
  std::lock_guard<std::mutex> l(t.mu);
  if (Driver(t) == nullptr) return false;
  auto s = reinterpret_cast<CUstream>(stream);
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  if (t.d->cuStreamIsCapturing(s, &capture) != CUDA_SUCCESS || capture != CU_STREAM_CAPTURE_STATUS_NONE) return false;
  x->start = NewEvent(t);
  x->end = NewEvent(t);
  x->stream = s;
  if (x->start == nullptr || x->end == nullptr || t.d->cuEventRecord(x->start, s) != CUDA_SUCCESS) {
    if (x->start != nullptr) t.spare.push_back(x->start);
    if (x->end != nullptr) t.spare.push_back(x->end);
    return false;
  }
  return true;
}

void EndTiming(Timing x) {
  Timer& t = TheTimer();
  std::lock_guard<std::mutex> l(t.mu);
  if (t.d->cuEventRecord(x.end, x.stream) != CUDA_SUCCESS) {
    t.spare.push_back(x.start);
    t.spare.push_back(x.end);
    return;
  }
  t.pending.push_back(x);
  HarvestLocked(t);
}

void Harvest() {
  Timer& t = TheTimer();
  std::lock_guard<std::mutex> l(t.mu);
  if (t.d != nullptr) HarvestLocked(t);
}

// --- one wrapped collective ----------------------------------------------------------------------

// Counts and times `call` (the real NCCL) as a call of kind `op` moving `bytes` on `comm`.
template <class Call>
ncclResult_t Collective(NcclOp op, size_t bytes, ncclComm_t comm, cudaStream_t stream, bool have, Call call) {
  g_calls.fetch_add(1, std::memory_order_relaxed);
  if (!have) return ncclSystemError;
  if (t_inside > 0) return call();
  NcclTelemetry::Comm* c = CommOf(comm);
  Timing x;
  x.comm = c;
  x.op = op;
  bool timed = c != nullptr && (t_group == 0 || t_group_timings.empty()) && StartTiming(&x, stream);
  ++t_inside;
  ncclResult_t rc = call();
  --t_inside;
  if (c != nullptr && (rc == ncclSuccess || rc == ncclInProgress)) Telemetry().Count(c, op, bytes);
  if (timed) {
    if (t_group > 0) {
      t_group_timings.push_back(x);  // ends after the group's launch
    } else {
      EndTiming(x);
    }
  }
  if (t_group == 0) Telemetry().MaybeFlush();
  return rc;
}

template <class Call>
ncclResult_t Plain(bool have, Call call) {  // communicator management: no counting
  if (!have) return ncclSystemError;
  ++t_inside;
  ncclResult_t rc = call();
  --t_inside;
  return rc;
}

// A communicator made from `parent` (a split or shrink): its id from the parent's, the kind and
// `color`, and how many the parent made before (the same on each of its ranks).
uint64_t ChildId(ncclComm_t parent, int kind, int color) {
  uint64_t parent_id = CommId(parent);
  auto& cs = TheComms();
  uint64_t nth;
  {
    std::lock_guard<std::mutex> l(cs.mu);
    nth = cs.splits[parent_id]++;
  }
  uint64_t key[4] = {parent_id, static_cast<uint64_t>(kind), static_cast<uint64_t>(static_cast<int64_t>(color)), nth};
  return HashBytes(key, sizeof(key));
}

// --- the static-NCCL check -----------------------------------------------------------------------

// Whether the ELF file at `path` defines `symbol` in its symbol table (.symtab or .dynsym).
bool DefinesSymbol(const char* path, const char* symbol) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  bool found = false;
  if (::fstat(fd, &st) == 0 && st.st_size > static_cast<off_t>(sizeof(Elf64_Ehdr))) {
    void* map = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (map != MAP_FAILED) {
      const auto* base = static_cast<const uint8_t*>(map);
      size_t size = static_cast<size_t>(st.st_size);
      const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(base);
      bool elf64 = std::memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_ident[EI_CLASS] == ELFCLASS64;
      if (elf64 && eh->e_shoff + uint64_t{eh->e_shnum} * sizeof(Elf64_Shdr) <= size) {
        const auto* sh = reinterpret_cast<const Elf64_Shdr*>(base + eh->e_shoff);
        for (int i = 0; i < eh->e_shnum && !found; ++i) {
          if (sh[i].sh_type != SHT_SYMTAB && sh[i].sh_type != SHT_DYNSYM) continue;
          if (sh[i].sh_link >= eh->e_shnum) continue;
          const Elf64_Shdr& strtab = sh[sh[i].sh_link];
          if (sh[i].sh_offset + sh[i].sh_size > size || strtab.sh_offset + strtab.sh_size > size) continue;
          const auto* sym = reinterpret_cast<const Elf64_Sym*>(base + sh[i].sh_offset);
          const char* names = reinterpret_cast<const char*>(base + strtab.sh_offset);
          for (size_t k = 0; k < sh[i].sh_size / sizeof(Elf64_Sym); ++k) {
            if (sym[k].st_shndx == SHN_UNDEF || sym[k].st_name >= strtab.sh_size) continue;
            if (std::strncmp(names + sym[k].st_name, symbol, strtab.sh_size - sym[k].st_name) == 0) {
              found = true;
              break;
            }
          }
        }
      }
      ::munmap(map, size);
    }
  }
  ::close(fd);
  return found;
}

// Loaded objects other than libnccl itself that define pncclAllReduce (NCCL linked into them).
std::vector<std::string> StaticNcclHolders(bool executable_only) {
  std::vector<std::string> out;
  char exe[4096];
  ssize_t n = ::readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n > 0) {
    exe[n] = '\0';
    if (DefinesSymbol(exe, "pncclAllReduce")) out.push_back(exe);
  }
  if (executable_only) return out;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* arg) {
        const char* name = info->dlpi_name;
        if (name == nullptr || *name == '\0' || std::strstr(name, "libnccl.so") != nullptr ||
            std::strstr(name, "liboutrider_nccl") != nullptr) {
          return 0;
        }
        if (DefinesSymbol(name, "pncclAllReduce")) static_cast<std::vector<std::string>*>(arg)->push_back(name);
        return 0;
      },
      &out);
  return out;
}

void SayStatic(const std::vector<std::string>& holders) {
  for (const std::string& h : holders) {
    Say("NCCL is linked statically into " + h + ": its calls cannot be interposed, so liboutrider_nccl.so "
        "sees none of them (use a dynamically linked NCCL, or the profiler plugin NCCL_PROFILER_PLUGIN=outrider)");
  }
}

bool g_said_static = false;

__attribute__((constructor)) void AtLoad() {
  if (std::getenv("OUTRIDER_NCCL_QUIET") != nullptr) return;
  std::vector<std::string> holders = StaticNcclHolders(true);
  SayStatic(holders);
  g_said_static = !holders.empty();
}

__attribute__((destructor)) void AtExit() {
  Harvest();
  Telemetry().FlushAll();
  // Libraries loaded since (as PyTorch loads its CUDA library) may hold NCCL too.
  if (g_calls.load() == 0 && !g_said_static && std::getenv("OUTRIDER_NCCL_QUIET") == nullptr) {
    SayStatic(StaticNcclHolders(false));
  }
}

}  // namespace
}  // namespace outrider::shim

using outrider::ipc::NcclOp;
using outrider::shim::ChildId;
using outrider::shim::Collective;
using outrider::shim::DtypeBytes;
using outrider::shim::Plain;
using outrider::shim::Ranks;
using outrider::shim::TheReal;

// --- communicators ---------------------------------------------------------------------------------

OUTRIDER_NCCL_API ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId id, int rank) {
  const auto& r = TheReal();
  ncclResult_t rc = Plain(r.CommInitRank != nullptr, [&] { return r.CommInitRank(comm, nranks, id, rank); });
  if (rc == ncclSuccess || rc == ncclInProgress) outrider::shim::Track(*comm, outrider::shim::HashBytes(&id, sizeof(id)));
  return rc;
}

OUTRIDER_NCCL_API ncclResult_t ncclCommInitRankConfig(ncclComm_t* comm, int nranks, ncclUniqueId id, int rank,
                                                     ncclConfig_t* config) {
  const auto& r = TheReal();
  ncclResult_t rc = Plain(r.CommInitRankConfig != nullptr, [&] { return r.CommInitRankConfig(comm, nranks, id, rank, config); });
  if (rc == ncclSuccess || rc == ncclInProgress) outrider::shim::Track(*comm, outrider::shim::HashBytes(&id, sizeof(id)));
  return rc;
}

OUTRIDER_NCCL_API ncclResult_t ncclCommInitRankScalable(ncclComm_t* comm, int nranks, int rank, int nid,
                                                       ncclUniqueId* ids, ncclConfig_t* config) {
  const auto& r = TheReal();
  ncclResult_t rc = Plain(r.CommInitRankScalable != nullptr, [&] { return r.CommInitRankScalable(comm, nranks, rank, nid, ids, config); });
  if ((rc == ncclSuccess || rc == ncclInProgress) && nid > 0) {
    outrider::shim::Track(*comm, outrider::shim::HashBytes(ids, sizeof(*ids)));
  }
  return rc;
}

OUTRIDER_NCCL_API ncclResult_t ncclCommInitAll(ncclComm_t* comms, int ndev, const int* devlist) {
  const auto& r = TheReal();
  ncclResult_t rc = Plain(r.CommInitAll != nullptr, [&] { return r.CommInitAll(comms, ndev, devlist); });
  if (rc == ncclSuccess) {
    static std::atomic<uint64_t> calls{0};
    uint64_t key[2] = {static_cast<uint64_t>(::getpid()), calls.fetch_add(1)};
    uint64_t id = outrider::shim::HashBytes(key, sizeof(key));
    for (int i = 0; i < ndev; ++i) outrider::shim::Track(comms[i], id);
  }
  return rc;
}

OUTRIDER_NCCL_API ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t* newcomm,
                                            ncclConfig_t* config) {
  const auto& r = TheReal();
  ncclResult_t rc = Plain(r.CommSplit != nullptr, [&] { return r.CommSplit(comm, color, key, newcomm, config); });
  uint64_t id = ChildId(comm, 1, color);  // every rank of the parent calls it, also those left out
  if ((rc == ncclSuccess || rc == ncclInProgress) && newcomm != nullptr && *newcomm != nullptr) {
    outrider::shim::Track(*newcomm, id);
  }
  return rc;
}

OUTRIDER_NCCL_API ncclResult_t ncclCommShrink(ncclComm_t comm, int* exclude, int n, ncclComm_t* newcomm,
                                             ncclConfig_t* config, int flags) {
  const auto& r = TheReal();
  ncclResult_t rc = Plain(r.CommShrink != nullptr, [&] { return r.CommShrink(comm, exclude, n, newcomm, config, flags); });
  uint64_t id = ChildId(comm, 2, 0);
  if ((rc == ncclSuccess || rc == ncclInProgress) && newcomm != nullptr && *newcomm != nullptr) {
    outrider::shim::Track(*newcomm, id);
  }
  return rc;
}

OUTRIDER_NCCL_API ncclResult_t ncclCommFinalize(ncclComm_t comm) {
  const auto& r = TheReal();
  outrider::shim::Harvest();
  return Plain(r.CommFinalize != nullptr, [&] { return r.CommFinalize(comm); });
}

OUTRIDER_NCCL_API ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  const auto& r = TheReal();
  outrider::shim::Harvest();
  outrider::shim::Untrack(comm);
  return Plain(r.CommDestroy != nullptr, [&] { return r.CommDestroy(comm); });
}

OUTRIDER_NCCL_API ncclResult_t ncclCommAbort(ncclComm_t comm) {
  const auto& r = TheReal();
  outrider::shim::Untrack(comm);
  return Plain(r.CommAbort != nullptr, [&] { return r.CommAbort(comm); });
}

// --- collectives and point-to-point ----------------------------------------------------------------

OUTRIDER_NCCL_API ncclResult_t ncclAllReduce(const void* send, void* recv, size_t count, ncclDataType_t dtype,
                                            ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream) {
  const auto& r = TheReal();
  return Collective(NcclOp::kAllReduce, count * DtypeBytes(dtype), comm, stream, r.AllReduce != nullptr,
                    [&] { return r.AllReduce(send, recv, count, dtype, op, comm, stream); });
}

OUTRIDER_NCCL_API ncclResult_t ncclBroadcast(const void* send, void* recv, size_t count, ncclDataType_t dtype, int root,
                                            ncclComm_t comm, cudaStream_t stream) {
  const auto& r = TheReal();
  return Collective(NcclOp::kBroadcast, count * DtypeBytes(dtype), comm, stream, r.Broadcast != nullptr,
                    [&] { return r.Broadcast(send, recv, count, dtype, root, comm, stream); });
}

OUTRIDER_NCCL_API ncclResult_t ncclBcast(void* buff, size_t count, ncclDataType_t dtype, int root, ncclComm_t comm,
                                        cudaStream_t stream) {
  const auto& r = TheReal();
  return Collective(NcclOp::kBroadcast, count * DtypeBytes(dtype), comm, stream, r.Bcast != nullptr,
                    [&] { return r.Bcast(buff, count, dtype, root, comm, stream); });
}

OUTRIDER_NCCL_API ncclResult_t ncclReduce(const void* send, void* recv, size_t count, ncclDataType_t dtype, ncclRedOp_t op,
                                         int root, ncclComm_t comm, cudaStream_t stream) {
  const auto& r = TheReal();
  return Collective(NcclOp::kReduce, count * DtypeBytes(dtype), comm, stream, r.Reduce != nullptr,
                    [&] { return r.Reduce(send, recv, count, dtype, op, root, comm, stream); });
}

OUTRIDER_NCCL_API ncclResult_t ncclAllGather(const void* send, void* recv, size_t count, ncclDataType_t dtype,
                                            ncclComm_t comm, cudaStream_t stream) {
  const auto& r = TheReal();
  return Collective(NcclOp::kAllGather, count * DtypeBytes(dtype), comm, stream, r.AllGather != nullptr,
                    [&] { return r.AllGather(send, recv, count, dtype, comm, stream); });
}

OUTRIDER_NCCL_API ncclResult_t ncclReduceScatter(const void* send, void* recv, size_t count, ncclDataType_t dtype,
                                                ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream) {
  const auto& r = TheReal();
  size_t bytes = count * DtypeBytes(dtype) * static_cast<size_t>(Ranks(comm));
  return Collective(NcclOp::kReduceScatter, bytes, comm, stream, r.ReduceScatter != nullptr,
                    [&] { return r.ReduceScatter(send, recv, count, dtype, op, comm, stream); });
}

OUTRIDER_NCCL_API ncclResult_t ncclAlltoAll(const void* send, void* recv, size_t count, ncclDataType_t dtype,
                                           ncclComm_t comm, cudaStream_t stream) {
  const auto& r = TheReal();
  size_t bytes = count * DtypeBytes(dtype) * static_cast<size_t>(Ranks(comm));
  return Collective(NcclOp::kAllToAll, bytes, comm, stream, r.AlltoAll != nullptr,
                    [&] { return r.AlltoAll(send, recv, count, dtype, comm, stream); });
}

OUTRIDER_NCCL_API ncclResult_t ncclGather(const void* send, void* recv, size_t count, ncclDataType_t dtype, int root,
                                         ncclComm_t comm, cudaStream_t stream) {
  const auto& r = TheReal();
  return Collective(NcclOp::kGather, count * DtypeBytes(dtype), comm, stream, r.Gather != nullptr,
                    [&] { return r.Gather(send, recv, count, dtype, root, comm, stream); });
}

OUTRIDER_NCCL_API ncclResult_t ncclScatter(const void* send, void* recv, size_t count, ncclDataType_t dtype, int root,
                                          ncclComm_t comm, cudaStream_t stream) {
  const auto& r = TheReal();
  return Collective(NcclOp::kScatter, count * DtypeBytes(dtype), comm, stream, r.Scatter != nullptr,
                    [&] { return r.Scatter(send, recv, count, dtype, root, comm, stream); });
}

OUTRIDER_NCCL_API ncclResult_t ncclSend(const void* send, size_t count, ncclDataType_t dtype, int peer, ncclComm_t comm,
                                       cudaStream_t stream) {
  const auto& r = TheReal();
  return Collective(NcclOp::kSend, count * DtypeBytes(dtype), comm, stream, r.Send != nullptr,
                    [&] { return r.Send(send, count, dtype, peer, comm, stream); });
}

OUTRIDER_NCCL_API ncclResult_t ncclRecv(void* recv, size_t count, ncclDataType_t dtype, int peer, ncclComm_t comm,
                                       cudaStream_t stream) {
  const auto& r = TheReal();
  return Collective(NcclOp::kRecv, count * DtypeBytes(dtype), comm, stream, r.Recv != nullptr,
                    [&] { return r.Recv(recv, count, dtype, peer, comm, stream); });
}

// --- groups ---------------------------------------------------------------------------------------

OUTRIDER_NCCL_API ncclResult_t ncclGroupStart() {
  const auto& r = TheReal();
  if (outrider::shim::t_inside == 0) ++outrider::shim::t_group;
  return Plain(r.GroupStart != nullptr, [&] { return r.GroupStart(); });
}

OUTRIDER_NCCL_API ncclResult_t ncclGroupEnd() {
  const auto& r = TheReal();
  bool mine = outrider::shim::t_inside == 0 && outrider::shim::t_group > 0;
  ncclResult_t rc = Plain(r.GroupEnd != nullptr, [&] { return r.GroupEnd(); });
  if (mine && --outrider::shim::t_group == 0) {
    // The group's calls launched now: its first call's timing ends here.
    for (const outrider::shim::Timing& x : outrider::shim::t_group_timings) outrider::shim::EndTiming(x);
    outrider::shim::t_group_timings.clear();
    outrider::shim::Telemetry().MaybeFlush();
  }
  return rc;
}
