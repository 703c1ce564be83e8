// Loading NCCL (see nccl.h).
#include "loaders/nccl/library.h"

#include <cstdlib>
#include <mutex>

#if OUTRIDER_HAVE_NCCL
#include <dlfcn.h>
#endif

namespace outrider::nccl {

std::string VersionString(int version) {
  return std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." +
         std::to_string(version % 100);
}

#if OUTRIDER_HAVE_NCCL

namespace {

Result<const Nccl*> DoLoad() {
  static Nccl nccl;
  const char* env = std::getenv("OUTRIDER_NCCL_LIBRARY");
  std::string lib = env != nullptr && *env != '\0' ? env : "libnccl.so.2";
  // RTLD_LOCAL: a trainer that loads its own NCCL keeps its symbols to itself.
  void* handle = ::dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    return Unavailable(
        "no NCCL: cannot load " + lib + " (" + (why != nullptr ? why : "?") +
        "; set OUTRIDER_NCCL_LIBRARY to its path, or add its folder to LD_LIBRARY_PATH)");
  }
#define OUTRIDER_NCCL_RESOLVE(name)                                          \
  nccl.name = reinterpret_cast<decltype(nccl.name)>(::dlsym(handle, #name)); \
  if (nccl.name == nullptr) return Unavailable("the NCCL library " + lib + " lacks " #name);
  OUTRIDER_NCCL_ENTRIES(OUTRIDER_NCCL_RESOLVE)
#undef OUTRIDER_NCCL_RESOLVE
  nccl.library = lib;
  OUTRIDER_RETURN_IF_ERROR(Check(nccl, nccl.ncclGetVersion(&nccl.version), "ncclGetVersion"));
  if (nccl.version < kMinVersion) {
    return Unavailable("the NCCL library " + lib + " is version " + VersionString(nccl.version) +
                       "; Outrider needs " + VersionString(kMinVersion) + " or later");
  }
  return &nccl;
}

std::once_flag g_once;
Result<const Nccl*> g_loaded = Internal("unset");

}  // namespace

Result<const Nccl*> Load() {
  std::call_once(g_once, [] { g_loaded = DoLoad(); });
  return g_loaded;
}

Status Check(const Nccl& n, ncclResult_t rc, const char* what, ncclComm_t comm) {
  if (rc == ncclSuccess || rc == ncclInProgress) return Status::Ok();
  std::string m = std::string(what) + ": ";
  m += n.ncclGetErrorString != nullptr ? std::string(n.ncclGetErrorString(rc))
                                       : "NCCL error " + std::to_string(rc);
  const char* last = n.ncclGetLastError != nullptr ? n.ncclGetLastError(comm) : nullptr;
  if (last != nullptr && *last != '\0') m += std::string(" (") + last + ")";
  switch (rc) {
    case ncclSystemError:
    case ncclRemoteError:
      return Unavailable(m);
    case ncclInvalidArgument:
    case ncclInvalidUsage:
      return InvalidArgument(m);
    default:
      return Internal(m);
  }
}

#else

Result<const Nccl*> Load() {
  return FailedPrecondition(
      "this build of Outrider has no NCCL support (configure with -DOUTRIDER_WITH_NCCL=ON)");
}

#endif

}  // namespace outrider::nccl
