// The communicators the interposer counts calls of, and its per-thread call state (call_stats.h).
#include "shim/nccl/call_stats.h"

#include <unordered_map>

#include "base/mutex.h"
#include "shim/nccl/real_nccl.h"

namespace outrider::shim {
namespace {

struct Comms {
  Mutex mu;
  std::unordered_map<ncclComm_t, NcclStatsSender::Comm*> by_handle OUTRIDER_GUARDED_BY(mu);
  // parent id -> splits made from it so far
  std::unordered_map<uint64_t, uint64_t> splits OUTRIDER_GUARDED_BY(mu);
};
Comms& TheComms() {
  static auto* c = new Comms;
  return *c;
}

uint64_t CommId(ncclComm_t comm) {
  NcclStatsSender::Comm* c = CommOf(comm);
  return c != nullptr ? NcclStatsSender::Id(c) : 0;
}

}  // namespace

NcclStatsSender& Telemetry() {
  static auto* t = new NcclStatsSender(ipc::NcclSource::kInterposer);
  return *t;
}

std::atomic<uint64_t> g_calls{0};
constinit thread_local int t_inside = 0;
constinit thread_local int t_group = 0;

NcclStatsSender::Comm* CommOf(ncclComm_t comm) {
  Comms& cs = TheComms();
  MutexLock l(&cs.mu);
  auto it = cs.by_handle.find(comm);
  return it == cs.by_handle.end() ? nullptr : it->second;
}

void Track(ncclComm_t comm, uint64_t id) {
  if (comm == nullptr || t_inside > 0) return;
  int rank = RankIn(comm);
  int nranks = Ranks(comm);
  NcclStatsSender::Comm* c = Telemetry().Track(id, rank, nranks);
  Comms& cs = TheComms();
  MutexLock l(&cs.mu);
  cs.by_handle[comm] = c;
}

void Untrack(ncclComm_t comm) {
  NcclStatsSender::Comm* c = nullptr;
  {
    Comms& cs = TheComms();
    MutexLock l(&cs.mu);
    auto it = cs.by_handle.find(comm);
    if (it == cs.by_handle.end()) return;
    c = it->second;
    cs.by_handle.erase(it);
  }
  Telemetry().Forget(c);
}

uint64_t ChildId(ncclComm_t parent, int kind, int color) {
  uint64_t parent_id = CommId(parent);
  auto& cs = TheComms();
  uint64_t nth;
  {
    MutexLock l(&cs.mu);
    nth = cs.splits[parent_id]++;
  }
  uint64_t key[4] = {parent_id, static_cast<uint64_t>(kind),
                     static_cast<uint64_t>(static_cast<int64_t>(color)), nth};
  return HashBytes(key, sizeof(key));
}

}  // namespace outrider::shim
