// liboutrider_nccl.so: NCCL's API, interposed with LD_PRELOAD (docs/gpu.md, "Unmodified
// trainers"). Every wrapped call goes on to the real NCCL's strong pnccl* entry point
// (real_nccl.h), and is counted for the node's agent: calls and bytes per communicator and kind
// (call_stats.h), and the GPU time between CUDA events recorded around it on the caller's stream
// (cuda_stream.h: read later, never waited for; not under CUDA graph capture; a group of calls is
// timed once, under its first call's kind). Calls NCCL makes to its own API from inside a wrapped
// call pass straight through, uncounted. Where $OUTRIDER_NCCL_OFFLOAD asks for it, the calls it
// names go through liboutrider.so to the agent instead (offload.h).
//
// A trainer whose NCCL is linked statically has nothing to interpose: the process then says so on
// stderr (at start for the executable, at exit for a library) if no call reached this library.
// OUTRIDER_NCCL_QUIET (any value) silences that.
#include <nccl.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <vector>

#include "shim/nccl/call_stats.h"
#include "shim/nccl/cuda_stream.h"
#include "shim/nccl/offload.h"
#include "shim/nccl/real_nccl.h"
#include "shim/nccl/say.h"
#include "shim/nccl/static_nccl.h"
#include "shim/nccl/stats_sender.h"

#define OUTRIDER_NCCL_API extern "C" __attribute__((visibility("default")))

namespace outrider::shim {
namespace {

using ipc::NcclOp;

size_t DtypeBytes(ncclDataType_t t) {
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
      return 1;  // fp8 kinds
  }
}

thread_local std::vector<Timing> t_group_timings;  // started inside the current group

// --- one wrapped collective ----------------------------------------------------------------------

// Counts and times `call` (the real NCCL) as a call of kind `op` moving `bytes` on `comm`.
template <class Call>
ncclResult_t Collective(NcclOp op, size_t bytes, ncclComm_t comm, cudaStream_t stream, bool have,
                        Call call) {
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

// --- the static-NCCL check (static_nccl.h) -------------------------------------------------------

void SayStatic(const std::vector<std::string>& holders) {
  for (const std::string& h : holders) {
    Say("NCCL is linked statically into " + h +
        ": its calls cannot be interposed, so liboutrider_nccl.so "
        "sees none of them (use a dynamically linked NCCL, or the profiler plugin "
        "NCCL_PROFILER_PLUGIN=outrider)");
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
using outrider::shim::OffloadAllGather;
using outrider::shim::OffloadAllReduce;
using outrider::shim::OffloadBroadcast;
using outrider::shim::OffloadReduceScatter;
using outrider::shim::Plain;
using outrider::shim::Ranks;
using outrider::shim::TheReal;

// --- communicators -------------------------------------------------------------------------------

OUTRIDER_NCCL_API ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId id,
                                                int rank) {
  const auto& r = TheReal();
  ncclResult_t rc =
      Plain(r.CommInitRank != nullptr, [&] { return r.CommInitRank(comm, nranks, id, rank); });
  if (rc == ncclSuccess || rc == ncclInProgress) {
    uint64_t cid = outrider::shim::HashBytes(&id, sizeof(id));
    outrider::shim::Track(*comm, cid);
    if (rc == ncclSuccess) outrider::shim::MaybeOffload(*comm, cid, nranks, rank);
  }
  return rc;
}

OUTRIDER_NCCL_API ncclResult_t ncclCommInitRankConfig(ncclComm_t* comm, int nranks, ncclUniqueId id,
                                                      int rank, ncclConfig_t* config) {
  const auto& r = TheReal();
  ncclResult_t rc = Plain(r.CommInitRankConfig != nullptr,
                          [&] { return r.CommInitRankConfig(comm, nranks, id, rank, config); });
  if (rc == ncclSuccess || rc == ncclInProgress) {
    uint64_t cid = outrider::shim::HashBytes(&id, sizeof(id));
    outrider::shim::Track(*comm, cid);
    // A non-blocking communicator is not ready here: it keeps to NCCL.
    if (rc == ncclSuccess) outrider::shim::MaybeOffload(*comm, cid, nranks, rank);
  }
  return rc;
}

OUTRIDER_NCCL_API ncclResult_t ncclCommInitRankScalable(ncclComm_t* comm, int nranks, int rank,
                                                        int nid, ncclUniqueId* ids,
                                                        ncclConfig_t* config) {
  const auto& r = TheReal();
  ncclResult_t rc = Plain(r.CommInitRankScalable != nullptr, [&] {
    return r.CommInitRankScalable(comm, nranks, rank, nid, ids, config);
  });
  if ((rc == ncclSuccess || rc == ncclInProgress) && nid > 0) {
    outrider::shim::Track(*comm, outrider::shim::HashBytes(ids, sizeof(*ids)));
  }
  return rc;
}

OUTRIDER_NCCL_API ncclResult_t ncclCommInitAll(ncclComm_t* comms, int ndev, const int* devlist) {
  const auto& r = TheReal();
  ncclResult_t rc =
      Plain(r.CommInitAll != nullptr, [&] { return r.CommInitAll(comms, ndev, devlist); });
  if (rc == ncclSuccess) {
    static std::atomic<uint64_t> calls{0};
    uint64_t key[2] = {static_cast<uint64_t>(::getpid()), calls.fetch_add(1)};
    uint64_t id = outrider::shim::HashBytes(key, sizeof(key));
    for (int i = 0; i < ndev; ++i) outrider::shim::Track(comms[i], id);
  }
  return rc;
}

OUTRIDER_NCCL_API ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key,
                                             ncclComm_t* newcomm, ncclConfig_t* config) {
  const auto& r = TheReal();
  ncclResult_t rc =
      Plain(r.CommSplit != nullptr, [&] { return r.CommSplit(comm, color, key, newcomm, config); });
  uint64_t id = ChildId(comm, 1, color);  // every rank of the parent calls it, also those left out
  if ((rc == ncclSuccess || rc == ncclInProgress) && newcomm != nullptr && *newcomm != nullptr) {
    outrider::shim::Track(*newcomm, id);
  }
  return rc;
}

OUTRIDER_NCCL_API ncclResult_t ncclCommShrink(ncclComm_t comm, int* exclude, int n,
                                              ncclComm_t* newcomm, ncclConfig_t* config,
                                              int flags) {
  const auto& r = TheReal();
  ncclResult_t rc = Plain(r.CommShrink != nullptr,
                          [&] { return r.CommShrink(comm, exclude, n, newcomm, config, flags); });
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

// --- collectives and point-to-point --------------------------------------------------------------

OUTRIDER_NCCL_API ncclResult_t ncclAllReduce(const void* send, void* recv, size_t count,
                                             ncclDataType_t dtype, ncclRedOp_t op, ncclComm_t comm,
                                             cudaStream_t stream) {
  const auto& r = TheReal();
  size_t bytes = count * DtypeBytes(dtype);
  return Collective(NcclOp::kAllReduce, bytes, comm, stream, r.AllReduce != nullptr, [&] {
    if (auto rc = OffloadAllReduce(send, recv, count, dtype, op, comm, stream, bytes)) return *rc;
    return r.AllReduce(send, recv, count, dtype, op, comm, stream);
  });
}

OUTRIDER_NCCL_API ncclResult_t ncclBroadcast(const void* send, void* recv, size_t count,
                                             ncclDataType_t dtype, int root, ncclComm_t comm,
                                             cudaStream_t stream) {
  const auto& r = TheReal();
  size_t bytes = count * DtypeBytes(dtype);
  return Collective(NcclOp::kBroadcast, bytes, comm, stream, r.Broadcast != nullptr, [&] {
    if (auto rc = OffloadBroadcast(send, recv, count, dtype, root, comm, stream, bytes)) return *rc;
    return r.Broadcast(send, recv, count, dtype, root, comm, stream);
  });
}

OUTRIDER_NCCL_API ncclResult_t ncclBcast(void* buff, size_t count, ncclDataType_t dtype, int root,
                                         ncclComm_t comm, cudaStream_t stream) {
  const auto& r = TheReal();
  size_t bytes = count * DtypeBytes(dtype);
  return Collective(NcclOp::kBroadcast, bytes, comm, stream, r.Bcast != nullptr, [&] {
    if (auto rc = OffloadBroadcast(buff, buff, count, dtype, root, comm, stream, bytes)) return *rc;
    return r.Bcast(buff, count, dtype, root, comm, stream);
  });
}

OUTRIDER_NCCL_API ncclResult_t ncclReduce(const void* send, void* recv, size_t count,
                                          ncclDataType_t dtype, ncclRedOp_t op, int root,
                                          ncclComm_t comm, cudaStream_t stream) {
  const auto& r = TheReal();
  return Collective(NcclOp::kReduce, count * DtypeBytes(dtype), comm, stream, r.Reduce != nullptr,
                    [&] { return r.Reduce(send, recv, count, dtype, op, root, comm, stream); });
}

OUTRIDER_NCCL_API ncclResult_t ncclAllGather(const void* send, void* recv, size_t count,
                                             ncclDataType_t dtype, ncclComm_t comm,
                                             cudaStream_t stream) {
  const auto& r = TheReal();
  size_t bytes = count * DtypeBytes(dtype);
  return Collective(NcclOp::kAllGather, bytes, comm, stream, r.AllGather != nullptr, [&] {
    if (auto rc = OffloadAllGather(send, recv, count, dtype, comm, stream, bytes)) return *rc;
    return r.AllGather(send, recv, count, dtype, comm, stream);
  });
}

OUTRIDER_NCCL_API ncclResult_t ncclReduceScatter(const void* send, void* recv, size_t count,
                                                 ncclDataType_t dtype, ncclRedOp_t op,
                                                 ncclComm_t comm, cudaStream_t stream) {
  const auto& r = TheReal();
  size_t bytes = count * DtypeBytes(dtype) * static_cast<size_t>(Ranks(comm));
  return Collective(NcclOp::kReduceScatter, bytes, comm, stream, r.ReduceScatter != nullptr, [&] {
    if (auto rc = OffloadReduceScatter(send, recv, count, dtype, op, comm, stream, bytes))
      return *rc;
    return r.ReduceScatter(send, recv, count, dtype, op, comm, stream);
  });
}

OUTRIDER_NCCL_API ncclResult_t ncclAlltoAll(const void* send, void* recv, size_t count,
                                            ncclDataType_t dtype, ncclComm_t comm,
                                            cudaStream_t stream) {
  const auto& r = TheReal();
  size_t bytes = count * DtypeBytes(dtype) * static_cast<size_t>(Ranks(comm));
  return Collective(NcclOp::kAllToAll, bytes, comm, stream, r.AlltoAll != nullptr,
                    [&] { return r.AlltoAll(send, recv, count, dtype, comm, stream); });
}

OUTRIDER_NCCL_API ncclResult_t ncclGather(const void* send, void* recv, size_t count,
                                          ncclDataType_t dtype, int root, ncclComm_t comm,
                                          cudaStream_t stream) {
  const auto& r = TheReal();
  return Collective(NcclOp::kGather, count * DtypeBytes(dtype), comm, stream, r.Gather != nullptr,
                    [&] { return r.Gather(send, recv, count, dtype, root, comm, stream); });
}

OUTRIDER_NCCL_API ncclResult_t ncclScatter(const void* send, void* recv, size_t count,
                                           ncclDataType_t dtype, int root, ncclComm_t comm,
                                           cudaStream_t stream) {
  const auto& r = TheReal();
  return Collective(NcclOp::kScatter, count * DtypeBytes(dtype), comm, stream, r.Scatter != nullptr,
                    [&] { return r.Scatter(send, recv, count, dtype, root, comm, stream); });
}

OUTRIDER_NCCL_API ncclResult_t ncclSend(const void* send, size_t count, ncclDataType_t dtype,
                                        int peer, ncclComm_t comm, cudaStream_t stream) {
  const auto& r = TheReal();
  return Collective(NcclOp::kSend, count * DtypeBytes(dtype), comm, stream, r.Send != nullptr,
                    [&] { return r.Send(send, count, dtype, peer, comm, stream); });
}

OUTRIDER_NCCL_API ncclResult_t ncclRecv(void* recv, size_t count, ncclDataType_t dtype, int peer,
                                        ncclComm_t comm, cudaStream_t stream) {
  const auto& r = TheReal();
  return Collective(NcclOp::kRecv, count * DtypeBytes(dtype), comm, stream, r.Recv != nullptr,
                    [&] { return r.Recv(recv, count, dtype, peer, comm, stream); });
}

// --- groups --------------------------------------------------------------------------------------

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
    for (const outrider::shim::Timing& x : outrider::shim::t_group_timings)
      outrider::shim::EndTiming(x);
    outrider::shim::t_group_timings.clear();
    outrider::shim::Telemetry().MaybeFlush();
  }
  return rc;
}
