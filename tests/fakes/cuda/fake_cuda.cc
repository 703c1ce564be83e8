// A fake CUDA driver for tests on machines without a GPU (OUTRIDER_CUDA_DRIVER=libfakecuda.so):
// the entries loaders/cuda/driver.h resolves, through the same cuGetProcAddress_v2, behaving as the
// real driver does where the protocol depends on it. This file holds the library's entry, devices
// and contexts; fake_cuda_memory.cc memory, IPC and VMM; fake_cuda_streams.cc streams, events and
// host functions; fake_cuda_internal.h what they share.
//
// - Device memory is memfd-backed shared mappings: a CUdeviceptr is an address in this process
//   (host code must still go through cuMemcpy*, as with a real GPU; nothing checks that).
// - Streams are worker threads running their queued operations in order: copies, host functions
//   (kernels are host functions here), cuStreamWriteValue64 (a release store) and
//   cuStreamWaitValue64 (the stream stalls until the condition holds, polling as a GPU does).
//   The legacy and per-thread default streams are one process-wide stream.
// - Legacy IPC: a handle names the exporting process and the allocation's memfd; opening it maps
//   /proc/PID/fd/FD (so, as with the real driver, only within one PID namespace), is refused in the
//   exporting process (CUDA_ERROR_INVALID_CONTEXT) and a second time in one process
//   (CUDA_ERROR_ALREADY_MAPPED), and maps the whole allocation (callers add their offset).
// - VMM: cuMemCreate makes a memfd; CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR exports a dup of it,
//   which another process imports (after SCM_RIGHTS) and maps into a reserved range; a mapping
//   has no access until cuMemSetAccess (touching it before faults, as on a GPU).
// - Host registration marks a range as pinned host memory; its device pointer is its address. A
//   copy from the device into memory not pinned returns when the stream has run it, as the driver's
//   does (into pinned memory it is queued and returns at once).
// - Strict where the driver is: a process forked after its parent's cuInit gets
//   CUDA_ERROR_NOT_INITIALIZED from every call (cuInit included); work on the default stream
//   needs a context current on the calling thread (CUDA_ERROR_INVALID_CONTEXT); a cuMem mapping
//   belongs to no context (CU_POINTER_ATTRIBUTE_CONTEXT is NULL), so only the calling thread's
//   context or the device's primary context can take its default-stream work; a copy on a stream
//   of another context than the current one fails (CUDA_ERROR_INVALID_CONTEXT).
//
// Environment: OUTRIDER_FAKE_CUDA_DEVICES (GPUs on the "machine", default 1),
// OUTRIDER_FAKE_CUDA_VISIBLE (comma-separated machine indices this process sees, in ordinal order,
// like CUDA_VISIBLE_DEVICES; default all), OUTRIDER_FAKE_CUDA_NO_DEVICE=1 (cuInit fails with
// CUDA_ERROR_NO_DEVICE), OUTRIDER_FAKE_CUDA_HOST_FUNCS=never (host functions never run, and hold
// their stream: see LaunchHostFunc).
#include "fake_cuda_internal.h"

namespace fake_cuda {

std::atomic<bool> g_initialized{false};
std::atomic<bool> g_forked{false};
std::vector<int> g_visible;
[[gnu::tls_model("initial-exec")]] thread_local CUcontext t_context = nullptr;

int CurrentOrdinal() {
  if (t_context == nullptr) return 0;
  return static_cast<int>(reinterpret_cast<uintptr_t>(t_context) - 0x1000);
}

namespace {

std::vector<int> VisibleDevices() {
  const char* n = std::getenv("OUTRIDER_FAKE_CUDA_DEVICES");
  int machine = n != nullptr ? std::atoi(n) : 1;
  std::vector<int> visible;
  const char* v = std::getenv("OUTRIDER_FAKE_CUDA_VISIBLE");
  if (v == nullptr || *v == '\0') {
    for (int i = 0; i < machine; ++i) visible.push_back(i);
    return visible;
  }
  std::string s(v);
  size_t at = 0;
  while (at <= s.size()) {
    size_t comma = s.find(',', at);
    int idx = std::atoi(
        s.substr(at, comma == std::string::npos ? std::string::npos : comma - at).c_str());
    if (idx >= 0 && idx < machine) visible.push_back(idx);
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return visible;
}

CUresult Init(unsigned int flags) {
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  const char* none = std::getenv("OUTRIDER_FAKE_CUDA_NO_DEVICE");
  if (none != nullptr && std::strcmp(none, "1") == 0) return CUDA_ERROR_NO_DEVICE;
  if (g_forked) return CUDA_ERROR_NOT_INITIALIZED;
  std::lock_guard<std::mutex> l(g_mu);
  if (!g_initialized) {
    g_visible = VisibleDevices();
    g_initialized = true;
    pthread_atfork(nullptr, nullptr, [] { g_forked = true; });
  }
  return g_visible.empty() ? CUDA_ERROR_NO_DEVICE : CUDA_SUCCESS;
}

CUresult DriverGetVersion(int* v) {
  if (v == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *v = CUDA_VERSION;
  return CUDA_SUCCESS;
}

CUresult GetErrorName(CUresult rc, const char** s) {
  switch (rc) {
    case CUDA_SUCCESS:
      *s = "CUDA_SUCCESS";
      break;
    case CUDA_ERROR_INVALID_VALUE:
      *s = "CUDA_ERROR_INVALID_VALUE";
      break;
    case CUDA_ERROR_OUT_OF_MEMORY:
      *s = "CUDA_ERROR_OUT_OF_MEMORY";
      break;
    case CUDA_ERROR_NOT_INITIALIZED:
      *s = "CUDA_ERROR_NOT_INITIALIZED";
      break;
    case CUDA_ERROR_NO_DEVICE:
      *s = "CUDA_ERROR_NO_DEVICE";
      break;
    case CUDA_ERROR_INVALID_DEVICE:
      *s = "CUDA_ERROR_INVALID_DEVICE";
      break;
    case CUDA_ERROR_INVALID_CONTEXT:
      *s = "CUDA_ERROR_INVALID_CONTEXT";
      break;
    case CUDA_ERROR_ALREADY_MAPPED:
      *s = "CUDA_ERROR_ALREADY_MAPPED";
      break;
    case CUDA_ERROR_INVALID_HANDLE:
      *s = "CUDA_ERROR_INVALID_HANDLE";
      break;
    case CUDA_ERROR_NOT_FOUND:
      *s = "CUDA_ERROR_NOT_FOUND";
      break;
    case CUDA_ERROR_NOT_READY:
      *s = "CUDA_ERROR_NOT_READY";
      break;
    case CUDA_ERROR_NOT_SUPPORTED:
      *s = "CUDA_ERROR_NOT_SUPPORTED";
      break;
    default:
      *s = "CUDA_ERROR_UNKNOWN";
      return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CUresult GetErrorString(CUresult rc, const char** s) {
  CUresult r = GetErrorName(rc, s);
  if (r == CUDA_SUCCESS) *s = rc == CUDA_SUCCESS ? "no error" : "fake CUDA driver error";
  return r;
}

CUresult DeviceGetCount(int* n) {
  NEED_INIT();
  *n = static_cast<int>(g_visible.size());
  return CUDA_SUCCESS;
}

CUresult DeviceGet(CUdevice* d, int ordinal) {
  NEED_INIT();
  if (ordinal < 0 || ordinal >= static_cast<int>(g_visible.size()))
    return CUDA_ERROR_INVALID_DEVICE;
  *d = ordinal;
  return CUDA_SUCCESS;
}

CUresult DeviceGetUuid(CUuuid* uuid, CUdevice d) {
  NEED_INIT();
  if (d < 0 || d >= static_cast<int>(g_visible.size())) return CUDA_ERROR_INVALID_DEVICE;
  // Fixed per machine index, whatever the ordinal: what UUIDs are for.
  int machine = g_visible[static_cast<size_t>(d)];
  for (int i = 0; i < 16; ++i)
    uuid->bytes[i] = static_cast<char>(0xf0 ^ (i * 17) ^ (machine * 29 + i));
  return CUDA_SUCCESS;
}

CUresult DeviceGetAttribute(int* v, CUdevice_attribute attr, CUdevice d) {
  NEED_INIT();
  if (d < 0 || d >= static_cast<int>(g_visible.size())) return CUDA_ERROR_INVALID_DEVICE;
  switch (attr) {
    case CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS:
    case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING:
      *v = 1;
      break;
    default:
      *v = 0;
  }
  return CUDA_SUCCESS;
}

CUresult PrimaryCtxRetain(CUcontext* c, CUdevice d) {
  NEED_INIT();
  if (d < 0 || d >= static_cast<int>(g_visible.size())) return CUDA_ERROR_INVALID_DEVICE;
  *c = ContextOf(d);
  return CUDA_SUCCESS;
}

CUresult PrimaryCtxRelease(CUdevice) { return CUDA_SUCCESS; }

CUresult CtxSetCurrent(CUcontext c) {
  NEED_INIT();
  t_context = c;
  return CUDA_SUCCESS;
}

CUresult CtxGetCurrent(CUcontext* c) {
  NEED_INIT();
  *c = t_context;
  return CUDA_SUCCESS;
}

CUresult CtxGetDevice(CUdevice* d) {
  NEED_INIT();
  if (t_context == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  *d = CurrentOrdinal();
  return CUDA_SUCCESS;
}

// cuCtxGetDevice_v2 (CUDA 13.0): the device of `ctx`, or of the current context if null.
CUresult CtxGetDevice_v2(CUdevice* d, CUcontext ctx) {
  if (ctx == nullptr) return CtxGetDevice(d);
  NEED_INIT();
  *d = static_cast<CUdevice>(reinterpret_cast<uintptr_t>(ctx) - 0x1000);  // ContextOf(ordinal)
  return CUDA_SUCCESS;
}

[[gnu::tls_model("initial-exec")]] thread_local std::vector<CUcontext>
    t_pushed;  // cuCtxPushCurrent's stack below t_context

CUresult CtxPushCurrent(CUcontext c) {
  NEED_INIT();
  if (c == nullptr) return CUDA_ERROR_INVALID_VALUE;
  t_pushed.push_back(t_context);
  t_context = c;
  return CUDA_SUCCESS;
}

CUresult CtxPopCurrent(CUcontext* c) {
  NEED_INIT();
  if (t_context == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  if (c != nullptr) *c = t_context;
  t_context = t_pushed.empty() ? nullptr : t_pushed.back();
  if (!t_pushed.empty()) t_pushed.pop_back();
  return CUDA_SUCCESS;
}

const EntryTable& Entries() {
  static const EntryTable table = [] {
    EntryTable entries;
    FAKE_ENTRY(cuInit, 2000, Init)
    FAKE_ENTRY(cuDriverGetVersion, 2020, DriverGetVersion)
    FAKE_ENTRY(cuGetErrorName, 6000, GetErrorName)
    FAKE_ENTRY(cuGetErrorString, 6000, GetErrorString)
    FAKE_ENTRY(cuDeviceGetCount, 2000, DeviceGetCount)
    FAKE_ENTRY(cuDeviceGet, 2000, DeviceGet)
    FAKE_ENTRY(cuDeviceGetUuid, 11040, DeviceGetUuid)
    FAKE_ENTRY(cuDeviceGetAttribute, 2000, DeviceGetAttribute)
    FAKE_ENTRY(cuDevicePrimaryCtxRetain, 7000, PrimaryCtxRetain)
    FAKE_ENTRY(cuDevicePrimaryCtxRelease, 11000, PrimaryCtxRelease)
    FAKE_ENTRY(cuCtxSetCurrent, 4000, CtxSetCurrent)
    FAKE_ENTRY(cuCtxGetCurrent, 4000, CtxGetCurrent)
    FAKE_ENTRY(cuCtxPushCurrent, 4000, CtxPushCurrent)
    FAKE_ENTRY(cuCtxPopCurrent, 4000, CtxPopCurrent)
    FAKE_ENTRY(cuCtxGetDevice, 2000, CtxGetDevice)
    FAKE_ENTRY(cuCtxGetDevice, 13000, CtxGetDevice_v2)
    AddMemoryEntries(entries);
    AddStreamEntries(entries);
    return entries;
  }();
  return table;
}

}  // namespace
}  // namespace fake_cuda

extern "C" __attribute__((visibility("default"))) CUresult cuGetProcAddress_v2(
    const char* symbol, void** pfn, int version, cuuint64_t,
    CUdriverProcAddressQueryResult* status) {
  if (symbol == nullptr || pfn == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *pfn = nullptr;
  auto it = fake_cuda::Entries().find(symbol);
  if (it == fake_cuda::Entries().end()) {
    if (status != nullptr) *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return CUDA_ERROR_NOT_FOUND;
  }
  // The newest ABI whose first version is at most the one asked for.
  auto abi = it->second.upper_bound(version);
  if (abi == it->second.begin()) {
    if (status != nullptr) *status = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
    return CUDA_ERROR_NOT_FOUND;
  }
  *pfn = std::prev(abi)->second;
  if (status != nullptr) *status = CU_GET_PROC_ADDRESS_SUCCESS;
  return CUDA_SUCCESS;
}
