// libnccl-profiler-outrider.so: an NCCL profiler plugin (NCCL_PROFILER_PLUGIN=outrider) that
// counts a process's NCCL collectives and point-to-point calls for the node's agent, like the
// interposer but with no interposition: calls and bytes when NCCL starts a collective, GPU time
// from its kernel channels' GPU timers (first channel start to last channel stop). Exports the
// plugin interface versions 5 (NCCL 2.28) and 4 (NCCL 2.27) (profiler_abi.h).
// Thread-safety: NCCL calls these from its user, host-callback and proxy threads: events are
// reference-counted (a collective is stopped before its channels are) under one mutex.
#include <strings.h>
#include <sys/types.h>

#include <atomic>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "base/mutex.h"
#include "shim/nccl/profiler_abi.h"
#include "shim/nccl/stats_sender.h"

namespace {

using namespace outrider::nccl_profiler;  // NOLINT: the interface's names, in this file only

using outrider::ipc::NcclOp;
using outrider::shim::NcclStatsSender;

// --- events
// ----------------------------------------------------------------------------------------

// Never destroyed (NCCL's proxy threads may still call in while the process exits); what is left
// is sent at exit.
NcclStatsSender& Telemetry() {
  static NcclStatsSender* t = [] {
    auto* made = new NcclStatsSender(outrider::ipc::NcclSource::kProfiler);
    std::atexit([] { Telemetry().FlushAll(); });
    return made;
  }();
  return *t;
}

outrider::Mutex g_mu;  // event state

struct Context {
  NcclStatsSender::Comm* comm;
};

struct Event {
  bool channel;  // a kernel channel of `parent`, else a collective or point-to-point call
  Event* parent = nullptr;
  Context* ctx = nullptr;
  NcclOp op = NcclOp::kAllReduce;
  int refs = 1;  // itself and its channels not yet stopped
  uint64_t gpu_start = UINT64_MAX, gpu_stop = 0;
};

bool Named(const char* func, const char* name) {
  return func != nullptr && strcasecmp(func, name) == 0;
}

bool OpOf(const char* func, NcclOp* op) {
  static const struct {
    const char* name;
    NcclOp op;
  } kOps[] = {{"AllReduce", NcclOp::kAllReduce},
              {"Broadcast", NcclOp::kBroadcast},
              {"Reduce", NcclOp::kReduce},
              {"AllGather", NcclOp::kAllGather},
              {"ReduceScatter", NcclOp::kReduceScatter},
              {"AlltoAll", NcclOp::kAllToAll},
              {"Gather", NcclOp::kGather},
              {"Scatter", NcclOp::kScatter},
              {"Send", NcclOp::kSend},
              {"Recv", NcclOp::kRecv}};
  for (const auto& k : kOps) {
    if (Named(func, k.name)) {
      *op = k.op;
      return true;
    }
  }
  return false;
}

// Bytes per element of a datatype NCCL names ("ncclFloat32", "ncclBfloat16", "ncclInt8", ...):
// its first number is its width in bits.
size_t ElementBytes(const char* datatype) {
  if (datatype == nullptr) return 1;
  for (const char* p = datatype; *p != '\0'; ++p) {
    if (std::isdigit(static_cast<unsigned char>(*p))) {
      int bits = std::atoi(p);
      return bits >= 8 ? static_cast<size_t>(bits / 8) : 1;
    }
  }
  return 1;
}

void Release(Event* e) OUTRIDER_REQUIRES(g_mu) {
  if (--e->refs > 0) return;
  if (e->gpu_stop > e->gpu_start && e->gpu_start != UINT64_MAX)
    Telemetry().Time(e->ctx->comm, e->op, e->gpu_stop - e->gpu_start);
  delete e;
}

Result Init(void** ctx, uint64_t comm_id, int* mask, int nranks, int rank) {
  if (nranks == 1) {
    // NCCL runs a one-rank communicator's collectives as plain copies, without a kernel plan,
    // and starts no profiler event for them (its taskAppend returns before any is made).
    static std::once_flag said;
    std::call_once(said, [] {
      std::fprintf(stderr,
                   "outrider-nccl-profiler: a communicator of one rank: NCCL reports none of its "
                   "collectives to "
                   "profiler plugins, so they are not counted here (the LD_PRELOAD interposer, "
                   "liboutrider_nccl.so, "
                   "counts every call)\n");
    });
  }
  *ctx = new Context{Telemetry().Track(comm_id, rank, nranks)};
  std::atomic_ref<int>(*mask).store(static_cast<int>(kColl | kP2p | kKernelCh),
                                    std::memory_order_relaxed);
  return kSuccess;
}

Result Start(void* ctx, void** handle, uint64_t type, void* parent, const EventUnion& u) {
  *handle = nullptr;
  auto* c = static_cast<Context*>(ctx);
  if (c == nullptr) return kSuccess;
  if (type == kColl || type == kP2p) {
    const char* func = type == kColl ? u.coll.func : u.p2p.func;
    NcclOp op;
    if (!OpOf(func, &op)) return kSuccess;
    size_t count = type == kColl ? u.coll.count : u.p2p.count;
    const char* datatype = type == kColl ? u.coll.datatype : u.p2p.datatype;
    Telemetry().Count(c->comm, op, count * ElementBytes(datatype));
    auto* e = new Event{false};
    e->ctx = c;
    e->op = op;
    *handle = e;
    Telemetry().MaybeFlush();
  } else if (type == kKernelCh && parent != nullptr) {
    auto* p = static_cast<Event*>(parent);
    outrider::MutexLock l(&g_mu);
    if (p->channel) return kSuccess;
    p->refs++;
    if (u.kernel_ch.timer < p->gpu_start) p->gpu_start = u.kernel_ch.timer;
    auto* e = new Event{true};
    e->parent = p;
    *handle = e;
  }
  return kSuccess;
}

Result Stop(void* handle) {
  auto* e = static_cast<Event*>(handle);
  if (e == nullptr) return kSuccess;
  outrider::MutexLock l(&g_mu);
  if (e->channel) {
    Release(e->parent);
    delete e;
  } else {
    Release(e);
  }
  return kSuccess;
}

Result Record(void* handle, int state, StateArgs* args) {
  auto* e = static_cast<Event*>(handle);
  if (e == nullptr || !e->channel || state != kStateKernelChStop || args == nullptr)
    return kSuccess;
  outrider::MutexLock l(&g_mu);
  if (args->kernel_ch.timer > e->parent->gpu_stop) e->parent->gpu_stop = args->kernel_ch.timer;
  return kSuccess;
}

Result Finalize(void* ctx) {
  auto* c = static_cast<Context*>(ctx);
  if (c == nullptr) return kSuccess;
  Telemetry().Forget(c->comm);
  delete c;
  return kSuccess;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) ProfilerV5 ncclProfiler_v5 = {
    "outrider",
    [](void** ctx, uint64_t comm_id, int* mask, const char*, int, int nranks, int rank, Logger) {
      return Init(ctx, comm_id, mask, nranks, rank);
    },
    [](void* ctx, void** handle, DescrV5* d) {
      return Start(ctx, handle, d->type, d->parent, d->u);
    },
    Stop,
    Record,
    Finalize};

__attribute__((visibility("default"))) ProfilerV4 ncclProfiler_v4 = {
    "outrider",
    [](void** ctx, int* mask, const char*, uint64_t comm_id, int, int nranks, int rank, Logger) {
      return Init(ctx, comm_id, mask, nranks, rank);
    },
    [](void* ctx, void** handle, DescrV4* d) {
      return Start(ctx, handle, d->type, d->parent, d->u);
    },
    Stop,
    Record,
    Finalize};

}  // extern "C"
