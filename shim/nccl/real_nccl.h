// The real NCCL behind the interposer: its strong pnccl* entry points, found with
// dlsym(RTLD_NEXT), else in dlopen("libnccl.so.2") (the application's NCCL may have been loaded
// where plain symbol lookup from here does not see it). A missing entry point stays null: its
// wrapper fails the call with ncclSystemError.
// Thread-safety: every function from any thread; the lookup happens once, at the first call.
#pragma once

#include <nccl.h>

namespace outrider::shim {

// The calls the interposer wraps (each exported as nccl<name>, forwarded to pnccl<name>).
// clang-format off
#define OUTRIDER_WRAPPED(X)                                                                             \
  X(CommInitRank) X(CommInitRankConfig) X(CommInitRankScalable) X(CommInitAll) X(CommSplit)           \
  X(CommShrink) X(CommFinalize) X(CommDestroy) X(CommAbort) X(AllReduce) X(Broadcast) X(Bcast) X(Reduce) \
  X(AllGather) X(ReduceScatter) X(AlltoAll) X(Gather) X(Scatter) X(Send) X(Recv) X(GroupStart) X(GroupEnd)
// clang-format on

// Not wrapped, but called here: looked up the same way.
#define OUTRIDER_USED(X) X(CommCount) X(CommUserRank)

struct RealNccl {
#define OUTRIDER_REAL_MEMBER(name) decltype(&::pnccl##name) name = nullptr;
  OUTRIDER_WRAPPED(OUTRIDER_REAL_MEMBER)
  OUTRIDER_USED(OUTRIDER_REAL_MEMBER)
#undef OUTRIDER_REAL_MEMBER
};

const RealNccl& TheReal();

// The number of ranks of `comm` (1 if NCCL cannot say).
int Ranks(ncclComm_t comm);
// This process's rank in `comm` (-1 if NCCL cannot say).
int RankIn(ncclComm_t comm);

}  // namespace outrider::shim
