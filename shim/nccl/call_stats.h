// What the interposer counts for the node's agent (stats_sender.h): the communicators the
// application made, each under an id that is the same on all of its ranks, and the per-thread
// state that tells an application's call from one NCCL makes to its own API inside a wrapped call.
// Thread-safety: every function from any thread; t_inside and t_group are the calling thread's.
#pragma once

#include <nccl.h>

#include <atomic>
#include <cstdint>

#include "shim/nccl/stats_sender.h"

namespace outrider::shim {

NcclStatsSender& Telemetry();  // flushed at exit (interposer.cc)

extern std::atomic<uint64_t> g_calls;  // calls that reached a wrapper (the static-NCCL check)
extern constinit thread_local int
    t_inside;  // > 0 inside a wrapped call: NCCL's own API calls pass through
extern constinit thread_local int t_group;  // ncclGroupStart depth

// Counts the calls on a communicator made by the application (not by NCCL inside a wrapped call).
void Track(ncclComm_t comm, uint64_t id);
void Untrack(ncclComm_t comm);
// The counts of `comm`, or null if it is not tracked.
NcclStatsSender::Comm* CommOf(ncclComm_t comm);

// A communicator made from `parent` (a split or shrink): its id from the parent's, the kind and
// `color`, and how many the parent made before (the same on each of its ranks).
uint64_t ChildId(ncclComm_t parent, int kind, int color);

}  // namespace outrider::shim
