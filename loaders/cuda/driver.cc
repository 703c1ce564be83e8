// Loading the CUDA driver (see driver.h).
#include "loaders/cuda/driver.h"

#if OUTRIDER_HAVE_CUDA

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "ipc/event_fd.h"

namespace outrider::cuda {
namespace {

// cuGetProcAddress as CUDA 12 and later export it (cuda.h's cuGetProcAddress is a macro for it).
using GetProcAddress = CUresult (*)(const char* symbol, void** pfn, int cuda_version,
                                    cuuint64_t flags, CUdriverProcAddressQueryResult* status);

Result<const Driver*> DoLoad() {
  static Driver driver;
  std::string lib = LibraryName();
  // RTLD_LOCAL: the driver's symbols stay out of the global namespace (a trainer's own CUDA
  // runtime loads the same library and gets the same instance either way).
  void* handle = ::dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    return Unavailable("no CUDA driver: cannot load " + lib + " (" + (why != nullptr ? why : "?") +
                       ")");
  }
  auto get = reinterpret_cast<GetProcAddress>(::dlsym(handle, "cuGetProcAddress_v2"));
  if (get == nullptr) {
    return Unavailable("the CUDA driver " + lib +
                       " has no cuGetProcAddress_v2 (CUDA 12 or later is needed)");
  }
#define OUTRIDER_CUDA_RESOLVE(name, version)                                                \
  {                                                                                         \
    void* fn = nullptr;                                                                     \
    CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;            \
    CUresult rc = get(#name, &fn, version, CU_GET_PROC_ADDRESS_DEFAULT, &found);            \
    if (rc != CUDA_SUCCESS || fn == nullptr || found != CU_GET_PROC_ADDRESS_SUCCESS) {      \
      return Unavailable("the CUDA driver " + lib +                                         \
                         " lacks " #name " at CUDA version " #version " (error " +          \
                         std::to_string(rc) + ", status " +                                 \
                         std::to_string(static_cast<int>(found)) + "): update the driver"); \
    }                                                                                       \
    driver.name = reinterpret_cast<decltype(driver.name)>(fn);                              \
  }
  OUTRIDER_CUDA_ENTRIES(OUTRIDER_CUDA_RESOLVE)
#undef OUTRIDER_CUDA_RESOLVE
  driver.library = lib;
  CUresult rc = driver.cuInit(0);
  if (rc != CUDA_SUCCESS) {
    Status s = Check(driver, rc, "cuInit");
    return Unavailable("the CUDA driver " + lib + " is there but unusable: " + s.message());
  }
  OUTRIDER_RETURN_IF_ERROR(
      Check(driver, driver.cuDriverGetVersion(&driver.version), "cuDriverGetVersion"));
  return &driver;
}

std::once_flag g_once;
Result<const Driver*> g_loaded = Internal("unset");
std::atomic<bool> g_tried{false};
std::atomic<bool> g_forked{false};  // this process was forked after Load()

}  // namespace

std::string LibraryName() {
  const char* env = std::getenv("OUTRIDER_CUDA_DRIVER");
  return env != nullptr && *env != '\0' ? env : "libcuda.so.1";
}

Result<const Driver*> Load() {
  std::call_once(g_once, [] {
    g_loaded = DoLoad();
    if (g_loaded.ok()) ::pthread_atfork(nullptr, nullptr, [] { g_forked.store(true); });
    g_tried = true;
  });
  if (g_forked.load(std::memory_order_relaxed)) {
    return FailedPrecondition(
        "CUDA was initialized before this process was forked, and the driver cannot be used in a "
        "child forked after "
        "cuInit: the parent must not use CUDA before it forks (probe for GPUs in a throwaway "
        "child), or the child "
        "must exec");
  }
  return g_loaded;
}

Result<const Driver*> LoadIfPresent() {
  if (g_tried.load()) return Load();
  std::string lib = LibraryName();
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
  if (d.cuGetErrorString == nullptr || d.cuGetErrorString(rc, &text) != CUDA_SUCCESS)
    text = nullptr;
  std::string m =
      std::string(what) + ": " + (name != nullptr ? name : "CUDA error " + std::to_string(rc));
  if (text != nullptr) m += std::string(" (") + text + ")";
  switch (rc) {
    case CUDA_ERROR_OUT_OF_MEMORY:
      return ResourceExhausted(m);
    case CUDA_ERROR_INVALID_VALUE:
    case CUDA_ERROR_INVALID_HANDLE:
      return InvalidArgument(m);
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_NOT_INITIALIZED:
      return Unavailable(m);
    default:
      return Internal(m);
  }
}

std::string UuidString(const CUuuid& uuid) {
  const auto* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
  char s[64];
  std::snprintf(s, sizeof(s),
                "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                b[14], b[15]);
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

Result<std::vector<Device>> ProbeDevices() {
  // Loaded here already: this process is past the point of forking CUDA workers anyway.
  if (g_tried.load() && g_loaded.ok() && !g_forked.load()) return Devices(**g_loaded);
  // The child writes "<code> <message>" on failure, or "0 <n>" and one UUID per line.
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return ErrnoStatus("probing for GPUs (pipe)", errno);
  pid_t pid = ::fork();
  if (pid < 0) {
    int e = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    return ErrnoStatus("probing for GPUs (fork)", e);
  }
  if (pid == 0) {
    ::close(fds[0]);
    std::string out;
    auto d = Load();
    Result<std::vector<Device>> devices =
        d.ok() ? Devices(**d) : Result<std::vector<Device>>(d.status());
    if (!devices.ok()) {
      out = std::to_string(static_cast<int>(devices.status().code())) + " " +
            std::string(devices.status().message());
    } else {
      out = "0 " + std::to_string(devices->size()) + "\n";
      for (const Device& dev : *devices) out += dev.uuid + "\n";
    }
    for (size_t at = 0; at < out.size();) {
      ssize_t n = ::write(fds[1], out.data() + at, out.size() - at);
      if (n <= 0 && errno != EINTR) break;
      if (n > 0) at += static_cast<size_t>(n);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string in;
  char buf[512];
  // A driver that hangs in cuInit must not hang the caller: a minute, then the child goes.
  const uint64_t deadline = ipc::MonotonicNs() + uint64_t{60'000'000'000};
  bool timed_out = false;
  for (;;) {
    uint64_t now = ipc::MonotonicNs();
    if (now >= deadline ||
        ipc::WaitReadable(fds[0], -1, static_cast<int>((deadline - now) / 1'000'000) + 1) == 0) {
      timed_out = true;
      break;
    }
    ssize_t n = ::read(fds[0], buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    in.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  if (timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out)
    return DeadlineExceeded("probing for GPUs: the CUDA driver " + LibraryName() +
                            " did not answer in 60 s");
  int code = -1;
  size_t space = in.find(' ');
  if (space != std::string::npos) code = std::atoi(in.substr(0, space).c_str());
  if (code < 0 || in.empty()) {
    return Internal("probing for GPUs: the probe process ended without an answer (status " +
                    std::to_string(status) + ")");
  }
  std::string rest = in.substr(space + 1);
  if (code != 0) return Status(static_cast<Code>(code), rest);
  size_t nl = rest.find('\n');
  int n = std::atoi(rest.substr(0, nl).c_str());
  std::vector<Device> out;
  for (int i = 0; i < n && nl != std::string::npos; ++i) {
    size_t next = rest.find('\n', nl + 1);
    out.push_back(Device{i, rest.substr(nl + 1, next - nl - 1)});
    nl = next;
  }
  return out;
}

Result<int> OrdinalOf(const Driver& d, const std::string& uuid) {
  OUTRIDER_ASSIGN_OR_RETURN(std::vector<Device> devices, Devices(d));
  for (const Device& dev : devices) {
    if (dev.uuid == uuid) return dev.ordinal;
  }
  return FailedPrecondition(
      "GPU " + uuid + " is not visible in this process (" + std::to_string(devices.size()) +
      " visible; check CUDA_VISIBLE_DEVICES and the container's device list)");
}

}  // namespace outrider::cuda

#else

namespace outrider::cuda {

Result<const Driver*> Load() {
  return FailedPrecondition(
      "this build of Outrider has no CUDA support (configure with -DOUTRIDER_WITH_CUDA=ON)");
}

Result<const Driver*> LoadIfPresent() { return Load(); }

Result<std::vector<Device>> ProbeDevices() { return Load().status(); }

std::string LibraryName() { return ""; }

}  // namespace outrider::cuda

#endif
