// liboutrider_nccl.so: NCCL's API, interposed with LD_PRELOAD (docs/gpu.md, "Unmodified
// trainers"). Every wrapped call goes on to the real NCCL's strong pnccl* entry point (found with
// dlsym(RTLD_NEXT), else in dlopen("libnccl.so.2")), and is counted for the node's agent: calls
// and bytes per communicator and kind, and the GPU time between CUDA events recorded around it on
// the caller's stream (read later, never waited for; not under CUDA graph capture; a group of
// calls is timed once, under its first call's kind). Calls NCCL makes to its own API from inside
// a wrapped call pass straight through, uncounted.
//
// Offload, where asked ($OUTRIDER_NCCL_OFFLOAD, e.g. "allreduce>=64MB,allgather"): the job's
// world communicator (as torchrun numbers ranks: $RANK of $WORLD_SIZE) joins the agent as a job of
// its own when it is created, and its ranks agree on the plan through one allreduce there (ranks
// whose plans differ all keep to NCCL). Matching calls then go through liboutrider.so on the
// caller's stream; calls inside an NCCL group, under CUDA graph capture, or of a dtype or reduce
// op the agent lacks go to NCCL, and the process says once why.
//
// A trainer whose NCCL is linked statically has nothing to interpose: the process then says so on
// stderr (at start for the executable, at exit for a library) if no call reached this library.
// OUTRIDER_NCCL_QUIET (any value) silences that.
#include <dlfcn.h>
#include <nccl.h>
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

#include "loaders/cuda/driver.h"
#include "outrider/outrider.h"
#include "shim/nccl/static_nccl.h"
#include "shim/nccl/stats_sender.h"

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

NcclStatsSender& Telemetry() {
  static auto* t = new NcclStatsSender(ipc::NcclSource::kInterposer);  // flushed at exit (below)
  return *t;
}

std::atomic<uint64_t> g_calls{0};  // calls that reached a wrapper (the static-NCCL check)
thread_local int t_inside = 0;     // > 0 inside a wrapped call: NCCL's own API calls pass through
thread_local int t_group = 0;      // ncclGroupStart depth

struct Comms {
  std::mutex mu;
  std::unordered_map<ncclComm_t, NcclStatsSender::Comm*> by_handle;
  std::unordered_map<uint64_t, uint64_t> splits;  // parent id -> splits made from it so far
};
Comms& TheComms() {
  static auto* c = new Comms;
  return *c;
}

NcclStatsSender::Comm* CommOf(ncclComm_t comm) {
  Comms& cs = TheComms();
  std::lock_guard<std::mutex> l(cs.mu);
  auto it = cs.by_handle.find(comm);
  return it == cs.by_handle.end() ? nullptr : it->second;
}

uint64_t CommId(ncclComm_t comm) {
  NcclStatsSender::Comm* c = CommOf(comm);
  return c != nullptr ? NcclStatsSender::Id(c) : 0;
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
  NcclStatsSender::Comm* c = Telemetry().Track(id, rank, nranks);
  Comms& cs = TheComms();
  std::lock_guard<std::mutex> l(cs.mu);
  cs.by_handle[comm] = c;
}

void Untrack(ncclComm_t comm) {
  NcclStatsSender::Comm* c = nullptr;
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
  NcclStatsSender::Comm* comm = nullptr;
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


// --- offload -----------------------------------------------------------------------------------

void SayOnce(const std::string& key, const std::string& what) {
  static std::mutex mu;
  static auto* said = new std::vector<std::string>;
  std::lock_guard<std::mutex> l(mu);
  for (const std::string& k : *said) {
    if (k == key) return;
  }
  said->push_back(key);
  Say(what);
}

struct Rule {
  NcclOp op;
  uint64_t min_bytes;
};

// "allreduce>=64MB,allgather" -> rules; false (and *why) on a bad one.
bool ParseOffload(const std::string& spec, std::vector<Rule>* rules, std::string* why) {
  static const struct { const char* name; NcclOp op; } kOps[] = {
      {"allreduce", NcclOp::kAllReduce}, {"broadcast", NcclOp::kBroadcast}, {"allgather", NcclOp::kAllGather},
      {"reducescatter", NcclOp::kReduceScatter}};
  size_t at = 0;
  while (at <= spec.size()) {
    size_t end = spec.find(',', at);
    if (end == std::string::npos) end = spec.size();
    std::string item = spec.substr(at, end - at);
    at = end + 1;
    if (item.empty()) continue;
    size_t ge = item.find(">=");
    std::string name = item.substr(0, ge);
    Rule r{NcclOp::kAllReduce, 0};
    bool known = false;
    for (const auto& k : kOps) {
      if (name == k.name) {
        r.op = k.op;
        known = true;
      }
    }
    if (!known) {
      *why = "'" + name + "' is not an offloadable call (allreduce, broadcast, allgather, reducescatter)";
      return false;
    }
    if (ge != std::string::npos) {
      std::string size = item.substr(ge + 2);
      char* unit = nullptr;
      double v = std::strtod(size.c_str(), &unit);
      std::string u = unit != nullptr ? unit : "";
      double scale = u.empty() || u == "B" ? 1 : u == "K" || u == "KB" || u == "KiB" ? 1024.0
                   : u == "M" || u == "MB" || u == "MiB" ? 1048576.0 : u == "G" || u == "GB" || u == "GiB" ? 1073741824.0 : -1;
      if (size.empty() || unit == size.c_str() || scale < 0 || !(v >= 0 && v < 1e15)) {
        *why = "'" + size + "' is not a size (a number, then B, K, M or G)";
        return false;
      }
      r.min_bytes = static_cast<uint64_t>(v * scale);
    }
    rules->push_back(r);
  }
  if (rules->empty()) {
    *why = "no call named";
    return false;
  }
  return true;
}

struct Offload {
  outrider_client_t* client = nullptr;
  std::vector<Rule> rules;
  std::deque<outrider_op_t> pending;  // submitted, not yet seen done
};

std::mutex g_offload_mu;
std::unordered_map<ncclComm_t, Offload*>& Offloads() {
  static auto* m = new std::unordered_map<ncclComm_t, Offload*>;
  return *m;
}

bool EnvInt(const char* name, int* out) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return false;
  char* end = nullptr;
  long x = std::strtol(v, &end, 10);
  if (*end != '\0') return false;
  *out = static_cast<int>(x);
  return true;
}

// At a communicator's creation: joins the agent and agrees on the plan, if offload is asked for.
void MaybeOffload(ncclComm_t comm, uint64_t id, int nranks, int rank) {
  const char* spec = std::getenv("OUTRIDER_NCCL_OFFLOAD");
  if (spec == nullptr || *spec == '\0' || comm == nullptr || t_inside > 0) return;
  std::vector<Rule> rules;
  std::string why;
  if (!ParseOffload(spec, &rules, &why)) {
    SayOnce("spec", std::string("OUTRIDER_NCCL_OFFLOAD='") + spec + "': " + why + "; every call goes to NCCL");
    return;
  }
  int env_rank = -1, env_world = -1;
  if (!EnvInt("RANK", &env_rank) || !EnvInt("WORLD_SIZE", &env_world) || env_world != nranks || env_rank != rank) {
    SayOnce("world", "offload serves the job's world communicator ($RANK of $WORLD_SIZE, as torchrun sets them): "
                     "a communicator of " + std::to_string(nranks) + " ranks (this one rank " + std::to_string(rank) +
                     ") goes to NCCL");
    return;
  }
  char idhex[17];
  std::snprintf(idhex, sizeof(idhex), "%016llx", static_cast<unsigned long long>(id));
  std::string job = Telemetry().job().empty() ? "default" : Telemetry().job();
  job = job.substr(0, 40) + "-nccl-" + idhex;
  outrider_connect_options_t o;
  outrider_connect_options_init(&o);
  o.job_id = job.c_str();
  outrider_client_t* c = nullptr;
  if (outrider_connect(&o, &c) != OUTRIDER_OK) {
    SayOnce("connect", std::string("offload: cannot reach the agent (") + outrider_last_error(nullptr) +
                           "): every call goes to NCCL");
    return;
  }
  // The plan (as parsed: "1M" and "1MiB" are one plan) must be the same on every rank:
  // max(h) == -max(-h) iff every rank has h.
  uint64_t plan = HashBytes(nullptr, 0);
  for (const Rule& r : rules) {
    uint64_t words[2] = {static_cast<uint64_t>(r.op), r.min_bytes};
    plan = HashBytes(words, sizeof(words), plan);
  }
  auto h = static_cast<int64_t>(plan >> 1);
  auto* agree = static_cast<int64_t*>(outrider_alloc(c, 2 * sizeof(int64_t)));
  outrider_op_t op = 0;
  bool same = false;
  if (agree != nullptr) {
    agree[0] = h;
    agree[1] = -h;
    if (outrider_allreduce(c, agree, agree, 2, OUTRIDER_I64, OUTRIDER_MAX, nullptr, &op) == OUTRIDER_OK &&
        outrider_wait(c, op, 60000) == OUTRIDER_OK) {
      same = agree[0] == -agree[1];
      if (!same) {
        SayOnce("differ", std::string("offload: the ranks' OUTRIDER_NCCL_OFFLOAD differ (this one: '") + spec +
                              "'): every call of the communicator goes to NCCL");
      }
    } else {
      SayOnce("agree", std::string("offload: the ranks could not agree on a plan through the agent (") +
                           outrider_last_error(c) + "): every call goes to NCCL");
    }
    outrider_free(c, agree);
  }
  if (!same) {
    outrider_disconnect(c);
    return;
  }
  SayOnce("on", std::string("offloading ") + spec + " of communicator " + idhex + " (" + std::to_string(nranks) +
                    " ranks) through the agent as job '" + job + "'");
  auto* off = new Offload{c, std::move(rules), {}};
  std::lock_guard<std::mutex> l(g_offload_mu);
  Offloads()[comm] = off;
}

// Done submissions leave the queue; a failed one is said once. g_offload_mu held.
void ReapLocked(Offload* o) {
  while (!o->pending.empty()) {
    int done = 0;
    int rc = outrider_test(o->client, o->pending.front(), &done);
    if (rc == OUTRIDER_OK && !done) return;
    if (rc != OUTRIDER_OK) SayOnce("failed", std::string("offload: an op failed: ") + outrider_last_error(o->client));
    o->pending.pop_front();
  }
}

bool Capturing(cudaStream_t stream) {
  Timer& t = TheTimer();
  std::lock_guard<std::mutex> l(t.mu);
  if (Driver(t) == nullptr) return false;
  CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
  return t.d->cuStreamIsCapturing(reinterpret_cast<CUstream>(stream), &st) != CUDA_SUCCESS ||
         st != CU_STREAM_CAPTURE_STATUS_NONE;
}

bool DtypeOf(ncclDataType_t t, outrider_dtype_t* out) {
  switch (t) {
    case ncclFloat32: *out = OUTRIDER_F32; return true;
    case ncclFloat64: *out = OUTRIDER_F64; return true;
    case ncclFloat16: *out = OUTRIDER_F16; return true;
    case ncclBfloat16: *out = OUTRIDER_BF16; return true;
    case ncclInt32: *out = OUTRIDER_I32; return true;
    case ncclInt64: *out = OUTRIDER_I64; return true;
    case ncclUint8: *out = OUTRIDER_U8; return true;
    case ncclInt8: *out = OUTRIDER_I8; return true;
    default: return false;
  }
}

bool RedopOf(ncclRedOp_t op, outrider_redop_t* out) {
  switch (op) {
    case ncclSum: *out = OUTRIDER_SUM; return true;
    case ncclProd: *out = OUTRIDER_PROD; return true;
    case ncclMax: *out = OUTRIDER_MAX; return true;
    case ncclMin: *out = OUTRIDER_MIN; return true;
    case ncclAvg: *out = OUTRIDER_AVG; return true;
    default: return false;
  }
}

// The offload of `comm` if this call goes through the agent: the same answer on every rank, as
// every input is the call's (kind, size, dtype, group, capture) or the agreed plan.
Offload* OffloadFor(ncclComm_t comm, NcclOp op, uint64_t bytes, ncclDataType_t dtype, const ncclRedOp_t* redop,
                    cudaStream_t stream, outrider_dtype_t* odt, outrider_redop_t* orop) {
  Offload* o = nullptr;
  {
    std::lock_guard<std::mutex> l(g_offload_mu);
    auto it = Offloads().find(comm);
    if (it == Offloads().end()) return nullptr;
    o = it->second;
    ReapLocked(o);
  }
  bool match = false;
  for (const Rule& r : o->rules) match = match || (r.op == op && bytes >= r.min_bytes);
  if (!match) return nullptr;
  if (t_group > 0) {
    SayOnce("group", "offload: calls inside ncclGroupStart/ncclGroupEnd go to NCCL");
    return nullptr;
  }
  if (!DtypeOf(dtype, odt) || (redop != nullptr && !RedopOf(*redop, orop))) {
    SayOnce("dtype", "offload: a call of an NCCL dtype or reduce op the agent lacks goes to NCCL");
    return nullptr;
  }
  if (Capturing(stream)) {
    SayOnce("capture", "offload: calls under CUDA graph capture go to NCCL (a graph replays NCCL's kernels only)");
    return nullptr;
  }
  return o;
}

// After a submission through the agent (`rc` its result, `h` its handle, read after the call
// returned): queued (ncclSuccess), or the call fails. It cannot go to
// NCCL instead: the other ranks' agents may have taken it, and NCCL would wait for them forever.
ncclResult_t Submitted(Offload* o, int rc, outrider_op_t h) {
  std::lock_guard<std::mutex> l(g_offload_mu);
  if (rc == OUTRIDER_OK) {
    o->pending.push_back(h);
    return ncclSuccess;
  }
  SayOnce("submit", std::string("offload: the agent refused a call (") + outrider_last_error(o->client) +
                        "): the call fails with ncclSystemError");
  return ncclSystemError;
}

outrider_op_options_t OnStream(cudaStream_t stream) {
  outrider_op_options_t o;
  outrider_op_options_init(&o);
  o.cuda_stream = stream;
  return o;
}

int RankIn(ncclComm_t comm) {
  int rank = -1;
  if (TheReal().CommUserRank != nullptr) (void)TheReal().CommUserRank(comm, &rank);
  return rank;
}

// Queues a device-to-device copy on `stream`: false if it could not.
bool CopyOnStream(void* dst, const void* src, size_t bytes, cudaStream_t stream) {
  Timer& t = TheTimer();
  std::lock_guard<std::mutex> l(t.mu);
  return Driver(t) != nullptr && t.d->cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst), reinterpret_cast<CUdeviceptr>(src),
                                                     bytes, reinterpret_cast<CUstream>(stream)) == CUDA_SUCCESS;
}

// Before a communicator goes: waits (bounded) for what it submitted, then leaves the agent.
void EndOffload(ncclComm_t comm) {
  Offload* o = nullptr;
  {
    std::lock_guard<std::mutex> l(g_offload_mu);
    auto it = Offloads().find(comm);
    if (it == Offloads().end()) return;
    o = it->second;
    Offloads().erase(it);
  }
  for (outrider_op_t h : o->pending) (void)outrider_wait(o->client, h, 60000);
  outrider_disconnect(o->client);
  delete o;
}

// --- one wrapped collective ----------------------------------------------------------------------

// Counts and times `call` (the real NCCL) as a call of kind `op` moving `bytes` on `comm`.
template <class Call>
ncclResult_t Collective(NcclOp op, size_t bytes, ncclComm_t comm, cudaStream_t stream, bool have, Call call) {
  g_calls.fetch_add(1, std::memory_order_relaxed);
  if (!have) return ncclSystemError;
  if (t_inside > 0) return call();
  NcclStatsSender::Comm* c = CommOf(comm);
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

// --- the static-NCCL check (static_nccl.h) ------------------------------------------------------

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
using outrider::shim::CopyOnStream;
using outrider::shim::OffloadFor;
using outrider::shim::OnStream;
using outrider::shim::RankIn;
using outrider::shim::Submitted;
using outrider::shim::DtypeBytes;
using outrider::shim::Plain;
using outrider::shim::Ranks;
using outrider::shim::TheReal;

// --- communicators
// ---------------------------------------------------------------------------------

OUTRIDER_NCCL_API ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId id, int rank) {
  const auto& r = TheReal();
  ncclResult_t rc = Plain(r.CommInitRank != nullptr, [&] { return r.CommInitRank(comm, nranks, id, rank); });
  if (rc == ncclSuccess || rc == ncclInProgress) {
    uint64_t cid = outrider::shim::HashBytes(&id, sizeof(id));
    outrider::shim::Track(*comm, cid);
    if (rc == ncclSuccess) outrider::shim::MaybeOffload(*comm, cid, nranks, rank);
  }
  return rc;
}

OUTRIDER_NCCL_API ncclResult_t ncclCommInitRankConfig(ncclComm_t* comm, int nranks, ncclUniqueId id, int rank,
                                                     ncclConfig_t* config) {
  const auto& r = TheReal();
  ncclResult_t rc = Plain(r.CommInitRankConfig != nullptr, [&] { return r.CommInitRankConfig(comm, nranks, id, rank, config); });
  if (rc == ncclSuccess || rc == ncclInProgress) {
    uint64_t cid = outrider::shim::HashBytes(&id, sizeof(id));
    outrider::shim::Track(*comm, cid);
    // A non-blocking communicator is not ready here: it keeps to NCCL.
    if (rc == ncclSuccess) outrider::shim::MaybeOffload(*comm, cid, nranks, rank);
  }
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
  outrider::shim::EndOffload(comm);
  return Plain(r.CommFinalize != nullptr, [&] { return r.CommFinalize(comm); });
}

OUTRIDER_NCCL_API ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  const auto& r = TheReal();
  outrider::shim::Harvest();
  outrider::shim::EndOffload(comm);
  outrider::shim::Untrack(comm);
  return Plain(r.CommDestroy != nullptr, [&] { return r.CommDestroy(comm); });
}

OUTRIDER_NCCL_API ncclResult_t ncclCommAbort(ncclComm_t comm) {
  const auto& r = TheReal();
  outrider::shim::EndOffload(comm);
  outrider::shim::Untrack(comm);
  return Plain(r.CommAbort != nullptr, [&] { return r.CommAbort(comm); });
}

// --- collectives and point-to-point
// ----------------------------------------------------------------

OUTRIDER_NCCL_API ncclResult_t ncclAllReduce(const void* send, void* recv, size_t count, ncclDataType_t dtype,
                                            ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream) {
  const auto& r = TheReal();
  size_t bytes = count * DtypeBytes(dtype);
  return Collective(NcclOp::kAllReduce, bytes, comm, stream, r.AllReduce != nullptr, [&] {
    outrider_dtype_t dt;
    outrider_redop_t ro;
    if (auto* o = OffloadFor(comm, NcclOp::kAllReduce, bytes, dtype, &op, stream, &dt, &ro)) {
      outrider_op_options_t opts = OnStream(stream);
      outrider_op_t h = 0;
      int rc = outrider_allreduce(o->client, send, recv, count, dt, ro, &opts, &h);
      return Submitted(o, rc, h);
    }
    return r.AllReduce(send, recv, count, dtype, op, comm, stream);
  });
}

OUTRIDER_NCCL_API ncclResult_t ncclBroadcast(const void* send, void* recv, size_t count, ncclDataType_t dtype, int root,
                                            ncclComm_t comm, cudaStream_t stream) {
  const auto& r = TheReal();
  size_t bytes = count * DtypeBytes(dtype);
  return Collective(NcclOp::kBroadcast, bytes, comm, stream, r.Broadcast != nullptr, [&] {
    outrider_dtype_t dt;
    if (auto* o = OffloadFor(comm, NcclOp::kBroadcast, bytes, dtype, nullptr, stream, &dt, nullptr)) {
      // The agent's broadcast is in place: the root's data goes into its receive buffer first.
      if (send != recv && RankIn(comm) == root && !CopyOnStream(recv, send, bytes, stream)) {
        outrider::shim::SayOnce("copy", "offload: a broadcast's root could not copy its data on the stream: "
                                        "the call fails with ncclUnhandledCudaError");
        return ncclUnhandledCudaError;
      }
      outrider_op_options_t opts = OnStream(stream);
      outrider_op_t h = 0;
      int rc = outrider_broadcast(o->client, recv, count, dt, root, &opts, &h);
      return Submitted(o, rc, h);
    }
    return r.Broadcast(send, recv, count, dtype, root, comm, stream);
  });
}

OUTRIDER_NCCL_API ncclResult_t ncclBcast(void* buff, size_t count, ncclDataType_t dtype, int root, ncclComm_t comm,
                                        cudaStream_t stream) {
  const auto& r = TheReal();
  size_t bytes = count * DtypeBytes(dtype);
  return Collective(NcclOp::kBroadcast, bytes, comm, stream, r.Bcast != nullptr, [&] {
    outrider_dtype_t dt;
    if (auto* o = OffloadFor(comm, NcclOp::kBroadcast, bytes, dtype, nullptr, stream, &dt, nullptr)) {
      outrider_op_options_t opts = OnStream(stream);
      outrider_op_t h = 0;
      int rc = outrider_broadcast(o->client, buff, count, dt, root, &opts, &h);
      return Submitted(o, rc, h);
    }
    return r.Bcast(buff, count, dtype, root, comm, stream);
  });
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
  size_t bytes = count * DtypeBytes(dtype);
  return Collective(NcclOp::kAllGather, bytes, comm, stream, r.AllGather != nullptr, [&] {
    outrider_dtype_t dt;
    if (auto* o = OffloadFor(comm, NcclOp::kAllGather, bytes, dtype, nullptr, stream, &dt, nullptr)) {
      outrider_op_options_t opts = OnStream(stream);
      outrider_op_t h = 0;
      int rc = outrider_allgather(o->client, send, recv, count, dt, &opts, &h);
      return Submitted(o, rc, h);
    }
    return r.AllGather(send, recv, count, dtype, comm, stream);
  });
}

OUTRIDER_NCCL_API ncclResult_t ncclReduceScatter(const void* send, void* recv, size_t count, ncclDataType_t dtype,
                                                ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream) {
  const auto& r = TheReal();
  size_t bytes = count * DtypeBytes(dtype) * static_cast<size_t>(Ranks(comm));
  return Collective(NcclOp::kReduceScatter, bytes, comm, stream, r.ReduceScatter != nullptr, [&] {
    outrider_dtype_t dt;
    outrider_redop_t ro;
    if (auto* o = OffloadFor(comm, NcclOp::kReduceScatter, bytes, dtype, &op, stream, &dt, &ro)) {
      outrider_op_options_t opts = OnStream(stream);
      outrider_op_t h = 0;
      int rc = outrider_reduce_scatter(o->client, send, recv, count, dt, ro, &opts, &h);
      return Submitted(o, rc, h);
    }
    return r.ReduceScatter(send, recv, count, dtype, op, comm, stream);
  });
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

// --- groups
// ---------------------------------------------------------------------------------------

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
