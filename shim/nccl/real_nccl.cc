// The real NCCL's entry points, looked up once (real_nccl.h).
#include "shim/nccl/real_nccl.h"

#include <dlfcn.h>

#include "shim/nccl/say.h"

namespace outrider::shim {

const RealNccl& TheReal() {
  static const RealNccl real = [] {
    RealNccl r;
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

int Ranks(ncclComm_t comm) {
  int n = 1;
  if (TheReal().CommCount == nullptr || TheReal().CommCount(comm, &n) != ncclSuccess || n < 1)
    n = 1;
  return n;
}

int RankIn(ncclComm_t comm) {
  int rank = -1;
  if (TheReal().CommUserRank != nullptr) (void)TheReal().CommUserRank(comm, &rank);
  return rank;
}

}  // namespace outrider::shim
