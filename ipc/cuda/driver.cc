// Loading the CUDA driver (see driver.h).
#include "ipc/cuda/driver.h"

#if OUTRIDER_HAVE_CUDA

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <atomic>
#include <mutex>

namespace outrider::cuda {
namespace {

// cuGetProcAddress as CUDA 12 and later export it (cuda.h's cuGetProcAddress is a macro for it).
using GetProcAddress = CUresult (*)(const char* symbol, void** pfn, int cuda_version, cuuint64_t flags,
                                    CUdriverProcAddressQueryResult* status);

Result<const Driver*> DoLoad() {
  static Driver driver;
  const char* env = std::getenv("OUTRIDER_CUDA_DRIVER");
  std::string lib = env != nullptr && *env != '\0' ? env : "libcuda.so.1";
  // RTLD_LOCAL: the driver's symbols stay out of the global namespace (a trainer's own CUDA
  // runtime loads the same library and gets the same instance either way).
  void* handle = ::dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    return Unavailable("no CUDA driver: cannot load " + lib + " (" + (why != nullptr ? why : "?") + ")");
  }
  auto get = reinterpret_cast<GetProcAddress>(::dlsym(handle, "cuGetProcAddress_v2"));
  if (get == nullptr) {
    return Unavailable("the CUDA driver " + lib + " has no cuGetProcAddress_v2 (CUDA 12 or later is needed)");
  }
#define OUTRIDER_CUDA_RESOLVE(name, version)                                                         \
  {                                                                                                  \
    void* fn = nullptr;                                                                              \
    CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;                     \
    CUresult rc = get(#name, &fn, version, CU_GET_PROC_ADDRESS_DEFAULT, &found);                     \
    if (rc != CUDA_SUCCESS || fn == nullptr || found != CU_GET_PROC_ADDRESS_SUCCESS) {               \
      return Unavailable("the CUDA driver " + lib + " lacks " #name " at CUDA version " #version    \
                         " (error " + std::to_string(rc) + ", status " +                             \
                         std::to_string(static_cast<int>(found)) + "): update the driver");          \
    }                                                                                                \
    driver.name = reinterpret_cast<decltype(driver.name)>(fn);                                       \
  }
  OUTRIDER_CUDA_ENTRIES(OUTRIDER_CUDA_RESOLVE)
#undef OUTRIDER_CUDA_RESOLVE
  driver.library = lib;
  CUresult rc = driver.cuInit(0);
  if (rc != CUDA_SUCCESS) {
    Status s = Check(driver, rc, "cuInit");
    return Unavailable("the CUDA driver " + lib + " is there but unusable: " + s.message());
  }
  OUTRIDER_RETURN_IF_ERROR(Check(driver, driver.cuDriverGetVersion(&driver.version), "cuDriverGetVersion"));
  return &driver;
}

std::once_flag g_once;
Result<const Driver*> g_loaded = Internal("unset");
std::atomic<bool> g_tried{false};

}  // namespace

Result<const Driver*> Load() {
  std::call_once(g_once, [] {
    g_loaded = DoLoad();
    g_tried = true;
  });
  return g_loaded;
}

Result<const Driver*> LoadIfPresent() {
  if (g_tried.load()) return g_loaded;
  const char* env = std::getenv("OUTRIDER_CUDA_DRIVER");
  std::string lib = env != nullptr && *env != '\0' ? env : "libcuda.so.1";
  void* handle = ::dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  if (handle == nullptr) return FailedPrecondition("the CUDA driver is not loaded in this process");
  ::dlclose(handle);
  return Load();
}

Status Check(const Driver& d, CUresult rc, const char* what) {
  if (rc == CUDA_SUCCESS) return Status::Ok();
  const char* name = nullptr;
  const char* text = nullptr;
  if (d.cuGetErrorName == nullptr || d.cuGetErrorName(rc, &name) != CUDA_SUCCESS) name = nullptr;
  if (d.cuGetErrorString == nullptr || d.cuGetErrorString(rc, &text) != CUDA_SUCCESS) text = nullptr;
  std::string m = std::string(what) + ": " + (name != nullptr ? name : "CUDA error " + std::to_string(rc));
  if (text != nullptr) m += std::string(" (") + text + ")";
  switch (rc) {
    case CUDA_ERROR_OUT_OF_MEMORY: return ResourceExhausted(m);
    case CUDA_ERROR_INVALID_VALUE:
    case CUDA_ERROR_INVALID_HANDLE: return InvalidArgument(m);
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_NOT_INITIALIZED: return Unavailable(m);
    default: return Internal(m);
  }
}

std::string UuidString(const CUuuid& uuid) {
  const auto* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
  char s[64];
  std::snprintf(s, sizeof(s), "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
                b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return s;
}

Result<std::vector<Device>> Devices(const Driver& d) {
  int n = 0;
  OUTRIDER_RETURN_IF_ERROR(Check(d, d.cuDeviceGetCount(&n), "cuDeviceGetCount"));
  std::vector<Device> out;
  for (int i = 0; i < n; ++i) {
    CUdevice dev = 0;
    OUTRIDER_RETURN_IF_ERROR(Check(d, d.cuDeviceGet(&dev, i), "cuDeviceGet"));
    CUuuid uuid{};
    OUTRIDER_RETURN_IF_ERROR(Check(d, d.cuDeviceGetUuid(&uuid, dev), "cuDeviceGetUuid"));
    out.push_back(Device{i, UuidString(uuid)});
  }
  return out;
}

Result<int> OrdinalOf(const Driver& d, const std::string& uuid) {
  OUTRIDER_ASSIGN_OR_RETURN(std::vector<Device> devices, Devices(d));
  for (const Device& dev : devices) {
    if (dev.uuid == uuid) return dev.ordinal;
  }
  return FailedPrecondition("GPU " + uuid + " is not visible in this process (" + std::to_string(devices.size()) +
                            " visible; check CUDA_VISIBLE_DEVICES and the container's device list)");
}

}  // namespace outrider::cuda

#else

namespace outrider::cuda {

Result<const Driver*> Load() {
  return FailedPrecondition("this build of Outrider has no CUDA support (configure with -DOUTRIDER_WITH_CUDA=ON)");
}

Result<const Driver*> LoadIfPresent() { return Load(); }

}  // namespace outrider::cuda

#endif
