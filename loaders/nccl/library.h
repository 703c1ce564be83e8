// NCCL, resolved at run time: libnccl.so.2 is dlopen()ed and its entry points looked up by name, so
// one binary runs with and without NCCL (and links nothing of it). $OUTRIDER_NCCL_LIBRARY names
// another library to load instead (a path, or the tests' fake NCCL). The library's version
// (ncclGetVersion) gates what is used: 2.19 or later is required (non-blocking communicators with
// ncclConfig_t, ncclCommGetAsyncError, ncclCommFinalize), older ones are refused naming both.
//
// Built with NCCL's header (OUTRIDER_HAVE_NCCL, CMake OUTRIDER_WITH_NCCL) this holds the table;
// built without, Load() says so and nothing else is declared.
#pragma once

#include <string>

#include "base/status.h"

#if OUTRIDER_HAVE_NCCL
#include <nccl.h>
#endif

namespace outrider::nccl {

constexpr bool kBuiltWithNccl = OUTRIDER_HAVE_NCCL != 0;
// 2.19.0 in NCCL_VERSION_CODE's encoding (major * 10000 + minor * 100 + patch).
constexpr int kMinVersion = 21900;

#if OUTRIDER_HAVE_NCCL

// clang-format off
#define OUTRIDER_NCCL_ENTRIES(X)                                                                     \
  X(ncclGetVersion) X(ncclGetUniqueId) X(ncclGetErrorString) X(ncclGetLastError)                     \
  X(ncclCommInitRankConfig) X(ncclCommGetAsyncError) X(ncclCommFinalize) X(ncclCommDestroy)          \
  X(ncclCommAbort) X(ncclCommCount) X(ncclCommUserRank) X(ncclGroupStart) X(ncclGroupEnd)             \
  X(ncclAllReduce) X(ncclBroadcast) X(ncclAllGather) X(ncclReduceScatter) X(ncclSend) X(ncclRecv)
// clang-format on

struct Nccl {
#define OUTRIDER_NCCL_MEMBER(name) decltype(&::name) name = nullptr;
  OUTRIDER_NCCL_ENTRIES(OUTRIDER_NCCL_MEMBER)
#undef OUTRIDER_NCCL_MEMBER
  std::string library;  // what was loaded
  int version = 0;      // ncclGetVersion: 22809 for 2.28.9
};

// The process's NCCL: loaded and resolved on the first call (later calls return the same table,
// or the same error). Unavailable naming the library and the reason (not found, an entry it
// lacks, a version below kMinVersion).
Result<const Nccl*> Load();

// `rc` as a Status (ok for ncclSuccess and ncclInProgress): "`what`: <NCCL's text>", with the
// communicator's last error where NCCL has one. ncclSystemError and ncclRemoteError (a peer or
// the network went away) are Unavailable, usage errors InvalidArgument, the rest Internal.
Status Check(const Nccl& n, ncclResult_t rc, const char* what, ncclComm_t comm = nullptr);

// "2.28.9".
std::string VersionString(int version);

#else

struct Nccl;
// Built without NCCL: always FailedPrecondition saying so.
Result<const Nccl*> Load();
std::string VersionString(int version);

#endif

}  // namespace outrider::nccl
