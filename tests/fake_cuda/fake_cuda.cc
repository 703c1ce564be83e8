// A fake CUDA driver for tests on machines without a GPU (OUTRIDER_CUDA_DRIVER=libfakecuda.so):
// the entries loaders/cuda/driver.h resolves, through the same cuGetProcAddress_v2, behaving as the
// real driver does where the protocol depends on it.
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
// - Host registration marks a range as pinned host memory; its device pointer is its address.
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
#include <cuda.h>
#include <cudaTypedefs.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

constexpr size_t kGranularity = 2 << 20;               // the VMM granularity real GPUs report
constexpr uint64_t kIpcMagic = 0x4655414b45495043ull;  // "FUAKEIPC"

// --- devices ---------------------------------------------------------------------------------

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

std::atomic<bool> g_initialized{false};  // g_visible is written once, before it turns true
// Set in a child forked after cuInit: the driver's state there is unusable, as on a real driver.
std::atomic<bool> g_forked{false};
std::vector<int> g_visible;  // machine index by ordinal
// The library is dlopen'ed: its thread-locals take static TLS (initial-exec) rather than dynamic
// TLS, whose blocks GCC 12's LeakSanitizer misreads at exit under ctest (a crash in its tracer).
[[gnu::tls_model("initial-exec")]] thread_local CUcontext t_context = nullptr;

CUcontext ContextOf(int ordinal) {
  return reinterpret_cast<CUcontext>(static_cast<uintptr_t>(0x1000 + ordinal));
}

// --- memory ----------------------------------------------------------------------------------

enum class Kind { kDevice, kHostRegistered, kIpcImported, kReserved };

struct Range {
  size_t bytes = 0;
  Kind kind = Kind::kDevice;
  int ordinal = 0;
  int memfd = -1;   // device memory: its backing (-1 for registered host memory, reservations)
  uint64_t id = 0;  // cuMemAlloc allocations: what legacy IPC handles name
  uint64_t buffer_id = 0;  // CU_POINTER_ATTRIBUTE_BUFFER_ID: unique per allocation or mapping
};

std::mutex g_mu;
std::map<uintptr_t, Range> g_ranges;  // by start address; guarded by g_mu
std::map<uint64_t, int> g_vmm;        // cuMemCreate handle -> memfd; guarded by g_mu
std::set<std::pair<int, uint64_t>>
    g_opened;  // legacy handles open here: (pid, id); guarded by g_mu
std::map<uintptr_t, std::pair<int, uint64_t>> g_opened_at;  // their mappings; guarded by g_mu
uint64_t g_next_id = 1;                                     // guarded by g_mu

// The range holding [p, p + bytes), if any (caller holds g_mu).
const std::pair<const uintptr_t, Range>* Find(uintptr_t p, size_t bytes = 1) {
  auto it = g_ranges.upper_bound(p);
  if (it == g_ranges.begin()) return nullptr;
  --it;
  if (p + bytes > it->first + it->second.bytes) return nullptr;
  return &*it;
}

int NewMemfd(size_t bytes) {
  int fd = memfd_create("fake-cuda-device", MFD_CLOEXEC);
  if (fd < 0) return -1;
  if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

int CurrentOrdinal() {
  if (t_context == nullptr) return 0;
  return static_cast<int>(reinterpret_cast<uintptr_t>(t_context) - 0x1000);
}

// --- streams ---------------------------------------------------------------------------------

class Stream {
 public:
  explicit Stream(CUcontext ctx = nullptr) : ctx_(ctx), worker_([this] { Run(); }) {
    worker_.detach();
  }
  CUcontext ctx() const { return ctx_; }

  void Push(std::function<void()> op) {
    {
      std::lock_guard<std::mutex> l(mu_);
      ops_.push_back(std::move(op));
    }
    cv_.notify_all();
  }
  // Blocks until everything queued so far has run.
  void Drain() {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait(l, [&] { return ops_.empty() && !busy_; });
  }
  bool Idle() {
    std::lock_guard<std::mutex> l(mu_);
    return ops_.empty() && !busy_;
  }

 private:
  void Run() {
    for (;;) {
      std::function<void()> op;
      {
        std::unique_lock<std::mutex> l(mu_);
        cv_.wait(l, [&] { return !ops_.empty(); });
        op = std::move(ops_.front());
        ops_.pop_front();
        busy_ = true;
      }
      op();
      {
        std::lock_guard<std::mutex> l(mu_);
        busy_ = false;
      }
      cv_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> ops_;
  bool busy_ = false;
  CUcontext ctx_;  // the context current where it was created
  std::thread
      worker_;  // detached: a stream stalled on a fence that never comes must not block exit
};

Stream* DefaultStream() {
  static Stream* s = new Stream();  // never destroyed, like the process's default stream
  return s;
}

Stream* StreamOf(CUstream s) {
  if (s == nullptr || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD) return DefaultStream();
  return reinterpret_cast<Stream*>(s);
}

bool WaitCondition(uint64_t have, uint64_t want, unsigned int flags) {
  switch (flags & 0x3) {
    case CU_STREAM_WAIT_VALUE_GEQ:
      return static_cast<int64_t>(have - want) >= 0;
    case CU_STREAM_WAIT_VALUE_EQ:
      return have == want;
    case CU_STREAM_WAIT_VALUE_AND:
      return (have & want) != 0;
    default:
      return ~(have | want) != 0;  // NOR
  }
}

// --- the entry points --------------------------------------------------------------------------

#define NEED_INIT()                                                    \
  do {                                                                 \
    if (!g_initialized || g_forked) return CUDA_ERROR_NOT_INITIALIZED; \
  } while (0)

bool IsDefault(CUstream s) {
  return s == nullptr || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD;
}

// Work on the default stream goes to the calling thread's current context: there must be one.
#define NEED_CONTEXT_FOR(stream)                                                      \
  do {                                                                                \
    if (IsDefault(stream) && t_context == nullptr) return CUDA_ERROR_INVALID_CONTEXT; \
  } while (0)

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

CUresult PointerGetAttribute(void* data, CUpointer_attribute attr, CUdeviceptr p) {
  NEED_INIT();
  std::lock_guard<std::mutex> l(g_mu);
  const auto* r = Find(static_cast<uintptr_t>(p));
  if (r == nullptr || r->second.kind == Kind::kReserved) return CUDA_ERROR_INVALID_VALUE;
  switch (attr) {
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
      *static_cast<unsigned int*>(data) =
          r->second.kind == Kind::kHostRegistered ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
      *static_cast<int*>(data) = r->second.ordinal;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
      *static_cast<CUdeviceptr*>(data) = r->first;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
      *static_cast<size_t*>(data) = r->second.bytes;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_CONTEXT:
      // cuMem mappings (id 0) belong to the device, not to a context.
      *static_cast<CUcontext*>(data) = r->second.kind == Kind::kDevice && r->second.id == 0
                                           ? nullptr
                                           : ContextOf(r->second.ordinal);
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_BUFFER_ID:
      *static_cast<unsigned long long*>(data) = r->second.buffer_id;
      return CUDA_SUCCESS;
    default:
      return CUDA_ERROR_NOT_SUPPORTED;
  }
}

CUresult MemGetAddressRange(CUdeviceptr* base, size_t* size, CUdeviceptr p) {
  NEED_INIT();
  std::lock_guard<std::mutex> l(g_mu);
  const auto* r = Find(static_cast<uintptr_t>(p));
  if (r == nullptr || r->second.kind == Kind::kHostRegistered || r->second.kind == Kind::kReserved)
    return CUDA_ERROR_NOT_FOUND;
  if (base != nullptr) *base = r->first;
  if (size != nullptr) *size = r->second.bytes;
  return CUDA_SUCCESS;
}

CUresult MemAlloc(CUdeviceptr* p, size_t bytes) {
  NEED_INIT();
  if (t_context == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  if (bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  int fd = NewMemfd(bytes);
  if (fd < 0) return CUDA_ERROR_OUT_OF_MEMORY;
  void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (m == MAP_FAILED) {
    close(fd);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  std::lock_guard<std::mutex> l(g_mu);
  uint64_t id = g_next_id++;
  g_ranges[reinterpret_cast<uintptr_t>(m)] =
      Range{bytes, Kind::kDevice, CurrentOrdinal(), fd, id, id};
  *p = reinterpret_cast<CUdeviceptr>(m);
  return CUDA_SUCCESS;
}

CUresult MemFree(CUdeviceptr p) {
  NEED_INIT();
  std::lock_guard<std::mutex> l(g_mu);
  auto it = g_ranges.find(static_cast<uintptr_t>(p));
  if (it == g_ranges.end() || it->second.kind != Kind::kDevice || it->second.id == 0)
    return CUDA_ERROR_INVALID_VALUE;
  munmap(reinterpret_cast<void*>(it->first), it->second.bytes);
  close(it->second.memfd);
  g_ranges.erase(it);
  return CUDA_SUCCESS;
}

CUresult Copy(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s) {
  NEED_INIT();
  if (t_context == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  // A copy on a stream of another context than the current one is refused, as drivers have done.
  if (!IsDefault(s) && StreamOf(s)->ctx() != t_context) return CUDA_ERROR_INVALID_CONTEXT;
  StreamOf(s)->Push([dst, src, bytes] {
    std::memcpy(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), bytes);
  });
  return CUDA_SUCCESS;
}

CUresult MemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s) {
  return Copy(dst, src, bytes, s);
}
CUresult MemcpyDtoHAsync(void* dst, CUdeviceptr src, size_t bytes, CUstream s) {
  return Copy(reinterpret_cast<CUdeviceptr>(dst), src, bytes, s);
}
CUresult MemcpyHtoDAsync(CUdeviceptr dst, const void* src, size_t bytes, CUstream s) {
  return Copy(dst, reinterpret_cast<CUdeviceptr>(src), bytes, s);
}

CUresult MemHostRegister(void* p, size_t bytes, unsigned int) {
  NEED_INIT();
  if (t_context == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  if (p == nullptr || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> l(g_mu);
  auto b = reinterpret_cast<uintptr_t>(p);
  auto it = g_ranges.lower_bound(b);
  if (Find(b) != nullptr || (it != g_ranges.end() && it->first < b + bytes))
    return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
  g_ranges[b] = Range{bytes, Kind::kHostRegistered, CurrentOrdinal(), -1, 0};
  return CUDA_SUCCESS;
}

CUresult MemHostUnregister(void* p) {
  NEED_INIT();
  std::lock_guard<std::mutex> l(g_mu);
  auto it = g_ranges.find(reinterpret_cast<uintptr_t>(p));
  if (it == g_ranges.end() || it->second.kind != Kind::kHostRegistered)
    return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
  g_ranges.erase(it);
  return CUDA_SUCCESS;
}

CUresult MemHostGetDevicePointer(CUdeviceptr* d, void* p, unsigned int flags) {
  NEED_INIT();
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> l(g_mu);
  const auto* r = Find(reinterpret_cast<uintptr_t>(p));
  if (r == nullptr || r->second.kind != Kind::kHostRegistered) return CUDA_ERROR_INVALID_VALUE;
  *d = reinterpret_cast<CUdeviceptr>(p);
  return CUDA_SUCCESS;
}

CUresult StreamCreate(CUstream* s, unsigned int) {
  NEED_INIT();
  if (t_context == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  *s = reinterpret_cast<CUstream>(new Stream(t_context));
  return CUDA_SUCCESS;
}

CUresult StreamDestroy(CUstream s) {
  NEED_INIT();
  if (s == nullptr || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD)
    return CUDA_ERROR_INVALID_HANDLE;
  // As the driver does: queued work still runs; the stream's resources go afterwards (here: never,
  // the worker thread stays parked; tests make few streams).
  return CUDA_SUCCESS;
}

CUresult StreamGetCtx(CUstream s, CUcontext* ctx) {
  NEED_INIT();
  CUcontext c = s == nullptr || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD
                    ? t_context
                    : StreamOf(s)->ctx();
  if (c == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  *ctx = c;
  return CUDA_SUCCESS;
}

// cuStreamGetCtx_v2 (CUDA 12.5): also the stream's green context, none here. Called through the
// two-argument prototype, it writes through whatever the third register holds, as the driver does.
CUresult StreamGetCtx_v2(CUstream s, CUcontext* ctx, CUgreenCtx* green) {
  CUresult rc = StreamGetCtx(s, ctx);
  if (rc == CUDA_SUCCESS) *green = nullptr;
  return rc;
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

CUresult StreamSynchronize(CUstream s) {
  NEED_INIT();
  NEED_CONTEXT_FOR(s);
  StreamOf(s)->Drain();
  return CUDA_SUCCESS;
}

CUresult StreamQuery(CUstream s) {
  NEED_INIT();
  NEED_CONTEXT_FOR(s);
  return StreamOf(s)->Idle() ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

// Events: a stream records one by running a step that stamps the time; captured streams (a
// flag, set by cuStreamBeginCapture) still run their work, as this driver has no graphs.
// An event may be destroyed while queued steps (records, waits) still name it: as the driver
// documents, its resources go once they have run. `holds` counts the handle and each such step.
struct Event {
  std::atomic<uint64_t> pending{0};  // records queued and not yet run
  std::atomic<uint64_t> queued{0};   // records queued so far
  std::atomic<uint64_t> ran{0};      // records run so far
  std::atomic<uint64_t> ns{0};
  std::atomic<uint32_t> holds{1};
};

void Release(Event* ev) {
  if (ev->holds.fetch_sub(1) == 1) delete ev;
}

uint64_t NowNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

CUresult EventCreate(CUevent* e, unsigned int) {
  NEED_INIT();
  if (t_context == nullptr)
    return CUDA_ERROR_INVALID_CONTEXT;  // an event belongs to the current context
  if (e == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *e = reinterpret_cast<CUevent>(new Event);
  return CUDA_SUCCESS;
}

CUresult EventDestroy(CUevent e) {
  NEED_INIT();
  if (e == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  Release(reinterpret_cast<Event*>(e));
  return CUDA_SUCCESS;
}

CUresult EventRecord(CUevent e, CUstream s) {
  NEED_INIT();
  NEED_CONTEXT_FOR(s);
  if (e == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  auto* ev = reinterpret_cast<Event*>(e);
  ev->holds.fetch_add(1);
  ev->pending.fetch_add(1);
  ev->queued.fetch_add(1);
  StreamOf(s)->Push([ev] {
    ev->ns.store(NowNs());
    ev->ran.fetch_add(1);
    ev->pending.fetch_sub(1);
    Release(ev);
  });
  return CUDA_SUCCESS;
}

// As the driver's: the stream waits for the event's most recent record at the time of the call
// (none: no wait); the event may be recorded again at once.
CUresult StreamWaitEvent(CUstream s, CUevent e, unsigned int) {
  NEED_INIT();
  NEED_CONTEXT_FOR(s);
  if (e == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  auto* ev = reinterpret_cast<Event*>(e);
  uint64_t want = ev->queued.load();
  ev->holds.fetch_add(1);
  StreamOf(s)->Push([ev, want] {
    for (unsigned spins = 0; ev->ran.load() < want; ++spins) {
      if (spins < 1000) {
        sched_yield();
      } else {
        usleep(50);
      }
    }
    Release(ev);
  });
  return CUDA_SUCCESS;
}

CUresult EventQuery(CUevent e) {
  NEED_INIT();
  if (e == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  return reinterpret_cast<Event*>(e)->pending.load() == 0 ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

CUresult EventElapsedTime(float* ms, CUevent start, CUevent end) {
  NEED_INIT();
  if (ms == nullptr || start == nullptr || end == nullptr) return CUDA_ERROR_INVALID_VALUE;
  auto* a = reinterpret_cast<Event*>(start);
  auto* b = reinterpret_cast<Event*>(end);
  if (a->pending.load() != 0 || b->pending.load() != 0) return CUDA_ERROR_NOT_READY;
  if (a->ns.load() == 0 || b->ns.load() == 0) return CUDA_ERROR_INVALID_HANDLE;  // never recorded
  *ms = static_cast<float>(static_cast<double>(static_cast<int64_t>(b->ns.load() - a->ns.load())) /
                           1e6);
  return CUDA_SUCCESS;
}

std::mutex g_capture_mu;
std::set<Stream*> g_capturing;

CUresult StreamBeginCapture(CUstream s, CUstreamCaptureMode) {
  NEED_INIT();
  NEED_CONTEXT_FOR(s);
  std::lock_guard<std::mutex> l(g_capture_mu);
  return g_capturing.insert(StreamOf(s)).second ? CUDA_SUCCESS : CUDA_ERROR_ILLEGAL_STATE;
}

CUresult StreamEndCapture(CUstream s, CUgraph* graph) {
  NEED_INIT();
  std::lock_guard<std::mutex> l(g_capture_mu);
  if (g_capturing.erase(StreamOf(s)) == 0) return CUDA_ERROR_ILLEGAL_STATE;
  if (graph != nullptr) *graph = nullptr;
  return CUDA_SUCCESS;
}

CUresult StreamIsCapturing(CUstream s, CUstreamCaptureStatus* status) {
  NEED_INIT();
  if (status == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> l(g_capture_mu);
  *status = g_capturing.count(StreamOf(s)) != 0 ? CU_STREAM_CAPTURE_STATUS_ACTIVE
                                                : CU_STREAM_CAPTURE_STATUS_NONE;
  return CUDA_SUCCESS;
}

CUresult StreamWriteValue64(CUstream s, CUdeviceptr addr, cuuint64_t value, unsigned int) {
  NEED_INIT();
  if (t_context == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  if (addr % 8 != 0) return CUDA_ERROR_INVALID_VALUE;
  StreamOf(s)->Push([addr, value] {
    std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(addr))
        .store(value, std::memory_order_release);
  });
  return CUDA_SUCCESS;
}

CUresult StreamWaitValue64(CUstream s, CUdeviceptr addr, cuuint64_t value, unsigned int flags) {
  NEED_INIT();
  if (t_context == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  if (addr % 8 != 0) return CUDA_ERROR_INVALID_VALUE;
  StreamOf(s)->Push([addr, value, flags] {
    std::atomic_ref<uint64_t> word(*reinterpret_cast<uint64_t*>(addr));
    for (int spins = 0; !WaitCondition(word.load(std::memory_order_acquire), value, flags);
         ++spins) {
      if (spins < 1000) {
        sched_yield();
      } else {
        usleep(50);  // a GPU front end polls; so does this
      }
    }
  });
  return CUDA_SUCCESS;
}

// OUTRIDER_FAKE_CUDA_HOST_FUNCS=never: host functions never run. The driver calls them from a
// thread of its own and holds their stream until they return, so a slow call (that thread not
// scheduled for tens or hundreds of microseconds, as on a busy or virtual machine) stalls whatever
// the stream has queued behind it; never is the extreme of that, for tests that nothing waits for
// one.
bool HostFuncsNeverRun() {
  static const bool never = [] {
    const char* v = std::getenv("OUTRIDER_FAKE_CUDA_HOST_FUNCS");
    return v != nullptr && std::strcmp(v, "never") == 0;
  }();
  return never;
}

CUresult LaunchHostFunc(CUstream s, CUhostFn fn, void* data) {
  NEED_INIT();
  NEED_CONTEXT_FOR(s);
  if (fn == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (HostFuncsNeverRun()) {
    StreamOf(s)->Push([] {
      for (;;) ::pause();  // the stream's worker is detached: the process still exits
    });
    return CUDA_SUCCESS;
  }
  StreamOf(s)->Push([fn, data] { fn(data); });
  return CUDA_SUCCESS;
}

// A legacy handle's bytes.
struct IpcHandle {
  uint64_t magic;
  int32_t pid;
  int32_t memfd;
  uint64_t id;
  uint64_t bytes;
  int32_t ordinal;
};
static_assert(sizeof(IpcHandle) <= CU_IPC_HANDLE_SIZE);

CUresult IpcGetMemHandle(CUipcMemHandle* h, CUdeviceptr p) {
  NEED_INIT();
  std::lock_guard<std::mutex> l(g_mu);
  const auto* r = Find(static_cast<uintptr_t>(p));
  if (r == nullptr || r->second.kind != Kind::kDevice || r->second.id == 0)
    return CUDA_ERROR_INVALID_VALUE;
  IpcHandle ih{kIpcMagic,    getpid(),        r->second.memfd,
               r->second.id, r->second.bytes, r->second.ordinal};
  std::memset(h, 0, sizeof(*h));
  std::memcpy(h->reserved, &ih, sizeof(ih));
  return CUDA_SUCCESS;
}

CUresult IpcOpenMemHandle(CUdeviceptr* p, CUipcMemHandle h, unsigned int) {
  NEED_INIT();
  if (t_context == nullptr)
    return CUDA_ERROR_INVALID_CONTEXT;  // the mapping goes into the current context
  IpcHandle ih;
  std::memcpy(&ih, h.reserved, sizeof(ih));
  if (ih.magic != kIpcMagic) return CUDA_ERROR_INVALID_VALUE;
  if (ih.pid == getpid()) return CUDA_ERROR_INVALID_CONTEXT;  // the exporter cannot open its own
  std::lock_guard<std::mutex> l(g_mu);
  if (g_opened.count({ih.pid, ih.id}) != 0) return CUDA_ERROR_ALREADY_MAPPED;
  std::string path = "/proc/" + std::to_string(ih.pid) + "/fd/" + std::to_string(ih.memfd);
  int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0)
    return CUDA_ERROR_INVALID_HANDLE;  // the exporter is gone, or in another PID namespace
  void* m = mmap(nullptr, ih.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (m == MAP_FAILED) {
    close(fd);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  auto b = reinterpret_cast<uintptr_t>(m);
  g_ranges[b] = Range{ih.bytes, Kind::kIpcImported, ih.ordinal, fd, 0};
  g_opened.insert({ih.pid, ih.id});
  g_opened_at[b] = {ih.pid, ih.id};
  *p = static_cast<CUdeviceptr>(b);
  return CUDA_SUCCESS;
}

CUresult IpcCloseMemHandle(CUdeviceptr p) {
  NEED_INIT();
  std::lock_guard<std::mutex> l(g_mu);
  auto it = g_ranges.find(static_cast<uintptr_t>(p));
  if (it == g_ranges.end() || it->second.kind != Kind::kIpcImported)
    return CUDA_ERROR_INVALID_VALUE;
  munmap(reinterpret_cast<void*>(it->first), it->second.bytes);
  close(it->second.memfd);
  g_opened.erase(g_opened_at[it->first]);
  g_opened_at.erase(it->first);
  g_ranges.erase(it);
  return CUDA_SUCCESS;
}

CUresult MemGetAllocationGranularity(size_t* g, const CUmemAllocationProp*,
                                     CUmemAllocationGranularity_flags) {
  NEED_INIT();
  *g = kGranularity;
  return CUDA_SUCCESS;
}

CUresult MemCreate(CUmemGenericAllocationHandle* h, size_t bytes, const CUmemAllocationProp* prop,
                   unsigned long long) {
  NEED_INIT();
  if (prop == nullptr || bytes == 0 || bytes % kGranularity != 0) return CUDA_ERROR_INVALID_VALUE;
  int fd = NewMemfd(bytes);
  if (fd < 0) return CUDA_ERROR_OUT_OF_MEMORY;
  std::lock_guard<std::mutex> l(g_mu);
  uint64_t id = g_next_id++;
  g_vmm[id] = fd;
  *h = id;
  return CUDA_SUCCESS;
}

CUresult MemRelease(CUmemGenericAllocationHandle h) {
  NEED_INIT();
  std::lock_guard<std::mutex> l(g_mu);
  auto it = g_vmm.find(h);
  if (it == g_vmm.end()) return CUDA_ERROR_INVALID_VALUE;
  close(it->second);  // mappings keep the memory
  g_vmm.erase(it);
  return CUDA_SUCCESS;
}

CUresult MemExportToShareableHandle(void* out, CUmemGenericAllocationHandle h,
                                    CUmemAllocationHandleType type, unsigned long long) {
  NEED_INIT();
  if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) return CUDA_ERROR_NOT_SUPPORTED;
  std::lock_guard<std::mutex> l(g_mu);
  auto it = g_vmm.find(h);
  if (it == g_vmm.end()) return CUDA_ERROR_INVALID_VALUE;
  int fd = fcntl(it->second, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) return CUDA_ERROR_OUT_OF_MEMORY;
  *static_cast<int*>(out) = fd;
  return CUDA_SUCCESS;
}

CUresult MemImportFromShareableHandle(CUmemGenericAllocationHandle* h, void* os_handle,
                                      CUmemAllocationHandleType type) {
  NEED_INIT();
  if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) return CUDA_ERROR_NOT_SUPPORTED;
  int fd = static_cast<int>(reinterpret_cast<intptr_t>(os_handle));
  struct stat st {};
  if (fstat(fd, &st) != 0 || st.st_size <= 0) return CUDA_ERROR_INVALID_VALUE;
  int mine = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (mine < 0) return CUDA_ERROR_OUT_OF_MEMORY;
  std::lock_guard<std::mutex> l(g_mu);
  uint64_t id = g_next_id++;
  g_vmm[id] = mine;
  *h = id;
  return CUDA_SUCCESS;
}

CUresult MemAddressReserve(CUdeviceptr* p, size_t bytes, size_t, CUdeviceptr, unsigned long long) {
  NEED_INIT();
  if (bytes == 0 || bytes % kGranularity != 0) return CUDA_ERROR_INVALID_VALUE;
  void* m = mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
  std::lock_guard<std::mutex> l(g_mu);
  g_ranges[reinterpret_cast<uintptr_t>(m)] = Range{bytes, Kind::kReserved, 0, -1, 0};
  *p = reinterpret_cast<CUdeviceptr>(m);
  return CUDA_SUCCESS;
}

CUresult MemAddressFree(CUdeviceptr p, size_t bytes) {
  NEED_INIT();
  std::lock_guard<std::mutex> l(g_mu);
  // The reservation may be in pieces (maps split it, unmaps leave the pieces): all of it must be
  // unmapped again, and nothing else may lie in it.
  auto first = g_ranges.find(static_cast<uintptr_t>(p));
  auto it = first;
  uintptr_t at = static_cast<uintptr_t>(p), end = at + bytes;
  while (at < end) {
    if (it == g_ranges.end() || it->first != at || it->second.kind != Kind::kReserved)
      return CUDA_ERROR_INVALID_VALUE;
    at += it->second.bytes;
    ++it;
  }
  if (at != end) return CUDA_ERROR_INVALID_VALUE;
  munmap(reinterpret_cast<void*>(p), bytes);
  g_ranges.erase(first, it);
  return CUDA_SUCCESS;
}

CUresult MemMap(CUdeviceptr p, size_t bytes, size_t offset, CUmemGenericAllocationHandle h,
                unsigned long long) {
  NEED_INIT();
  std::lock_guard<std::mutex> l(g_mu);
  auto v = g_vmm.find(h);
  const auto* r = Find(static_cast<uintptr_t>(p), bytes);
  if (v == g_vmm.end() || r == nullptr || r->second.kind != Kind::kReserved ||
      bytes % kGranularity != 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  // No access until cuMemSetAccess, as on a GPU (a copy before it faults).
  void* m = mmap(reinterpret_cast<void*>(p), bytes, PROT_NONE, MAP_SHARED | MAP_FIXED, v->second,
                 static_cast<off_t>(offset));
  if (m == MAP_FAILED) return CUDA_ERROR_INVALID_VALUE;
  // The mapped piece becomes device memory inside the reservation (which keeps its own entry
  // only where nothing is mapped: simplified to one mapping per reservation start here).
  uintptr_t start = r->first;
  Range reserved = r->second;
  g_ranges.erase(start);
  if (static_cast<uintptr_t>(p) > start)
    g_ranges[start] = Range{static_cast<uintptr_t>(p) - start, Kind::kReserved, 0, -1, 0};
  // The mapping keeps its own reference to the memory: what cuMemRetainAllocationHandle hands out.
  g_ranges[static_cast<uintptr_t>(p)] = Range{
      bytes, Kind::kDevice, CurrentOrdinal(), fcntl(v->second, F_DUPFD_CLOEXEC, 0), 0, g_next_id++};
  uintptr_t end = static_cast<uintptr_t>(p) + bytes;
  if (end < start + reserved.bytes)
    g_ranges[end] = Range{start + reserved.bytes - end, Kind::kReserved, 0, -1, 0};
  return CUDA_SUCCESS;
}

CUresult MemUnmap(CUdeviceptr p, size_t bytes) {
  NEED_INIT();
  std::lock_guard<std::mutex> l(g_mu);
  auto it = g_ranges.find(static_cast<uintptr_t>(p));
  if (it == g_ranges.end() || it->second.kind != Kind::kDevice || it->second.id != 0 ||
      it->second.bytes != bytes) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  mmap(reinterpret_cast<void*>(p), bytes, PROT_NONE,
       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
  if (it->second.memfd >= 0) close(it->second.memfd);
  it->second.memfd = -1;
  it->second.kind = Kind::kReserved;
  return CUDA_SUCCESS;
}

CUresult MemSetAccess(CUdeviceptr p, size_t bytes, const CUmemAccessDesc* desc, size_t count) {
  NEED_INIT();
  if (desc == nullptr || count == 0) return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> l(g_mu);
  const auto* r = Find(static_cast<uintptr_t>(p), bytes);
  if (r == nullptr || r->second.kind != Kind::kDevice || r->second.id != 0)
    return CUDA_ERROR_INVALID_VALUE;  // mapped VMM only
  int prot = desc->flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE ? PROT_READ | PROT_WRITE
             : desc->flags == CU_MEM_ACCESS_FLAGS_PROT_READ    ? PROT_READ
                                                               : PROT_NONE;
  return mprotect(reinterpret_cast<void*>(p), bytes, prot) == 0 ? CUDA_SUCCESS
                                                                : CUDA_ERROR_INVALID_VALUE;
}

CUresult MemRetainAllocationHandle(CUmemGenericAllocationHandle* h, void* addr) {
  NEED_INIT();
  std::lock_guard<std::mutex> l(g_mu);
  const auto* r = Find(reinterpret_cast<uintptr_t>(addr));
  // VMM mappings only: cuMemAlloc memory (id != 0) is not a cuMem allocation.
  if (r == nullptr || r->second.kind != Kind::kDevice || r->second.id != 0 || r->second.memfd < 0)
    return CUDA_ERROR_INVALID_VALUE;
  int fd = fcntl(r->second.memfd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) return CUDA_ERROR_OUT_OF_MEMORY;
  uint64_t id = g_next_id++;
  g_vmm[id] = fd;
  *h = id;
  return CUDA_SUCCESS;
}

// Every entry with the first CUDA version of its ABI, as cudaTypedefs.h names it (PFN_<api>_v<N>);
// an implementation must have exactly that type (a mismatch fails to compile). Entries whose
// signature changed under the same name have one implementation per ABI, and cuGetProcAddress
// hands out the newest one up to the version asked for, as the driver does.
#define FAKE_ENTRY(api, version, impl)                                          \
  static_assert(std::is_same_v<decltype(&impl), PFN_##api##_v##version>, #api); \
  entries[#api][version] = reinterpret_cast<void*>(&impl);

// By name, then by the first version of each ABI.
using EntryTable = std::map<std::string, std::map<int, void*>>;
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
    FAKE_ENTRY(cuStreamGetCtx, 9020, StreamGetCtx)
    FAKE_ENTRY(cuCtxGetDevice, 2000, CtxGetDevice)
    FAKE_ENTRY(cuPointerGetAttribute, 4000, PointerGetAttribute)
    FAKE_ENTRY(cuMemGetAddressRange, 3020, MemGetAddressRange)
    FAKE_ENTRY(cuMemAlloc, 3020, MemAlloc)
    FAKE_ENTRY(cuMemFree, 3020, MemFree)
    FAKE_ENTRY(cuMemcpyAsync, 4000, MemcpyAsync)
    FAKE_ENTRY(cuMemcpyDtoHAsync, 3020, MemcpyDtoHAsync)
    FAKE_ENTRY(cuMemcpyHtoDAsync, 3020, MemcpyHtoDAsync)
    FAKE_ENTRY(cuMemHostRegister, 6050, MemHostRegister)
    FAKE_ENTRY(cuMemHostUnregister, 4000, MemHostUnregister)
    FAKE_ENTRY(cuMemHostGetDevicePointer, 3020, MemHostGetDevicePointer)
    FAKE_ENTRY(cuStreamCreate, 2000, StreamCreate)
    FAKE_ENTRY(cuStreamDestroy, 4000, StreamDestroy)
    FAKE_ENTRY(cuStreamSynchronize, 2000, StreamSynchronize)
    FAKE_ENTRY(cuStreamQuery, 2000, StreamQuery)
    FAKE_ENTRY(cuStreamWriteValue64, 11070, StreamWriteValue64)
    FAKE_ENTRY(cuStreamWaitValue64, 11070, StreamWaitValue64)
    FAKE_ENTRY(cuLaunchHostFunc, 10000, LaunchHostFunc)
    FAKE_ENTRY(cuStreamWaitEvent, 3020, StreamWaitEvent)
    FAKE_ENTRY(cuIpcGetMemHandle, 4010, IpcGetMemHandle)
    FAKE_ENTRY(cuIpcOpenMemHandle, 11000, IpcOpenMemHandle)
    FAKE_ENTRY(cuIpcCloseMemHandle, 4010, IpcCloseMemHandle)
    FAKE_ENTRY(cuMemCreate, 10020, MemCreate)
    FAKE_ENTRY(cuMemRelease, 10020, MemRelease)
    FAKE_ENTRY(cuMemExportToShareableHandle, 10020, MemExportToShareableHandle)
    FAKE_ENTRY(cuMemImportFromShareableHandle, 10020, MemImportFromShareableHandle)
    FAKE_ENTRY(cuMemAddressReserve, 10020, MemAddressReserve)
    FAKE_ENTRY(cuMemAddressFree, 10020, MemAddressFree)
    FAKE_ENTRY(cuMemMap, 10020, MemMap)
    FAKE_ENTRY(cuMemUnmap, 10020, MemUnmap)
    FAKE_ENTRY(cuMemSetAccess, 10020, MemSetAccess)
    FAKE_ENTRY(cuMemGetAllocationGranularity, 10020, MemGetAllocationGranularity)
    FAKE_ENTRY(cuMemRetainAllocationHandle, 11000, MemRetainAllocationHandle)
    FAKE_ENTRY(cuEventCreate, 2000, EventCreate)
    FAKE_ENTRY(cuEventRecord, 2000, EventRecord)
    FAKE_ENTRY(cuEventQuery, 2000, EventQuery)
    FAKE_ENTRY(cuEventElapsedTime, 12080, EventElapsedTime)
    FAKE_ENTRY(cuEventDestroy, 4000, EventDestroy)
    FAKE_ENTRY(cuStreamIsCapturing, 10000, StreamIsCapturing)
    FAKE_ENTRY(cuStreamBeginCapture, 10010, StreamBeginCapture)
    FAKE_ENTRY(cuStreamEndCapture, 10000, StreamEndCapture)
    FAKE_ENTRY(cuStreamGetCtx, 12050, StreamGetCtx_v2)
    FAKE_ENTRY(cuCtxGetDevice, 13000, CtxGetDevice_v2)
    return entries;
  }();
  return table;
}
#undef FAKE_ENTRY

}  // namespace

extern "C" __attribute__((visibility("default"))) CUresult cuGetProcAddress_v2(
    const char* symbol, void** pfn, int version, cuuint64_t,
    CUdriverProcAddressQueryResult* status) {
  if (symbol == nullptr || pfn == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *pfn = nullptr;
  auto it = Entries().find(symbol);
  if (it == Entries().end()) {
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
