// Loading liboutrider_gpu_sparse.so (see library.h).
#include "loaders/gpu_sparse/library.h"

#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "loaders/gpu_sparse/abi.h"

namespace outrider::gpu_sparse {
namespace {

constexpr const char* kName = "liboutrider_gpu_sparse.so";

// <dir of the agent binary>/../lib/<kName>, or "" if /proc/self/exe cannot be read.
std::string BesideTheAgent() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return "";
  std::string exe(buf, static_cast<size_t>(n));
  size_t slash = exe.rfind('/');
  if (slash == std::string::npos) return "";
  return exe.substr(0, slash) + "/../lib/" + kName;
}

Result<const Library*> DoLoad() {
  static Library g;
  std::vector<std::string> tries;
  const char* env = std::getenv("OUTRIDER_GPU_SPARSE_LIBRARY");
  const char* driver = std::getenv("OUTRIDER_CUDA_DRIVER");
  if (env != nullptr && *env != '\0') {
    tries.push_back(env);  // named: nothing else is tried
  } else if (driver != nullptr && *driver != '\0') {
    // The library's CUDA runtime loads the system's driver, not this one: they would disagree.
    return Unavailable(
        std::string("no GPU sparse library: the agent's CUDA driver is ") + driver +
        " (OUTRIDER_CUDA_DRIVER), and the library's CUDA runtime would load the system's; set "
        "OUTRIDER_GPU_SPARSE_LIBRARY to use one anyway");
  } else {
    if (std::string beside = BesideTheAgent(); !beside.empty()) tries.push_back(beside);
    tries.push_back(kName);
  }
  std::string why;
  for (const std::string& lib : tries) {
    void* handle = ::dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* e = ::dlerror();
      why += (why.empty() ? "" : "; ") + std::string(e != nullptr ? e : lib + ": ?");
      continue;
    }
    struct Entry {
      void** slot;
      const char* name;
    };
    const Entry entries[] = {
        {reinterpret_cast<void**>(&g.abi), "outrider_gpu_sparse_abi"},
        {reinterpret_cast<void**>(&g.coalesce), "outrider_gpu_coalesce"},
        {reinterpret_cast<void**>(&g.coalesce_ids), "outrider_gpu_coalesce_ids"},
        {reinterpret_cast<void**>(&g.coalesce_values), "outrider_gpu_coalesce_values"},
        {reinterpret_cast<void**>(&g.coalesce_free), "outrider_gpu_coalesce_free"},
        {reinterpret_cast<void**>(&g.error), "outrider_gpu_sparse_error"}};
    for (const Entry& e : entries) {
      *e.slot = ::dlsym(handle, e.name);
      if (*e.slot == nullptr) return Unavailable(lib + " lacks " + e.name);
    }
    if (int abi = g.abi(); abi != OUTRIDER_GPU_SPARSE_ABI) {
      return Unavailable(lib + " has interface version " + std::to_string(abi) +
                         "; this agent needs " + std::to_string(OUTRIDER_GPU_SPARSE_ABI));
    }
    g.library = lib;
    return &g;
  }
  return Unavailable("no GPU sparse library: " + why);
}

std::once_flag g_once;
Result<const Library*> g_loaded = Internal("unset");

}  // namespace

Result<const Library*> Library::Load() {
  std::call_once(g_once, [] { g_loaded = DoLoad(); });
  return g_loaded;
}

Status Library::Check(int rc, const char* what) const {
  if (rc == 0) return Status::Ok();
  return Internal(std::string(what) + ": " + error(rc));
}

}  // namespace outrider::gpu_sparse
