// The fake CUDA driver's parts (fake_cuda.cc: the library, its devices and contexts;
// fake_cuda_memory.cc: allocations, copies, registration, IPC, VMM; fake_cuda_streams.cc:
// streams, events, stream memory operations, host functions) share these: the machine's devices
// and the calling thread's context, the registry of memory ranges, streams, the entry points'
// checks, and the table of entries each part adds to.
#pragma once

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

namespace fake_cuda {

// --- devices ---------------------------------------------------------------------------------

extern std::atomic<bool> g_initialized;  // g_visible is written once, before it turns true
// Set in a child forked after cuInit: the driver's state there is unusable, as on a real driver.
extern std::atomic<bool> g_forked;
extern std::vector<int> g_visible;  // machine index by ordinal
// The library is dlopen'ed: its thread-locals take static TLS (initial-exec) rather than dynamic
// TLS, whose blocks GCC 12's LeakSanitizer misreads at exit under ctest (a crash in its tracer).
[[gnu::tls_model("initial-exec")]] extern thread_local CUcontext t_context;

inline CUcontext ContextOf(int ordinal) {
  return reinterpret_cast<CUcontext>(static_cast<uintptr_t>(0x1000 + ordinal));
}

// The ordinal of the calling thread's context's device (0 without one).
int CurrentOrdinal();

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

extern std::mutex g_mu;
extern std::map<uintptr_t, Range> g_ranges;  // by start address; guarded by g_mu
extern std::map<uint64_t, int> g_vmm;        // cuMemCreate handle -> memfd; guarded by g_mu
// Legacy handles open here, (pid, id), and their mappings; guarded by g_mu.
extern std::set<std::pair<int, uint64_t>> g_opened;
extern std::map<uintptr_t, std::pair<int, uint64_t>> g_opened_at;
extern uint64_t g_next_id;  // guarded by g_mu

// The range holding [p, p + bytes), if any (caller holds g_mu).
const std::pair<const uintptr_t, Range>* Find(uintptr_t p, size_t bytes = 1);

// A memfd of `bytes` (-1 on failure).
int NewMemfd(size_t bytes);

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

// The process's default stream (legacy and per-thread are one), never destroyed.
Stream* DefaultStream();
Stream* StreamOf(CUstream s);
// Whether `have` meets cuStreamWaitValue64's condition `flags` for `want`.
bool WaitCondition(uint64_t have, uint64_t want, unsigned int flags);

// --- the entry points --------------------------------------------------------------------------

#define NEED_INIT()                                                    \
  do {                                                                 \
    if (!g_initialized || g_forked) return CUDA_ERROR_NOT_INITIALIZED; \
  } while (0)

inline bool IsDefault(CUstream s) {
  return s == nullptr || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD;
}

// Work on the default stream goes to the calling thread's current context: there must be one.
#define NEED_CONTEXT_FOR(stream)                                                      \
  do {                                                                                \
    if (IsDefault(stream) && t_context == nullptr) return CUDA_ERROR_INVALID_CONTEXT; \
  } while (0)

// Every entry with the first CUDA version of its ABI, as cudaTypedefs.h names it (PFN_<api>_v<N>);
// an implementation must have exactly that type (a mismatch fails to compile). Entries whose
// signature changed under the same name have one implementation per ABI, and cuGetProcAddress
// hands out the newest one up to the version asked for, as the driver does.
#define FAKE_ENTRY(api, version, impl)                                          \
  static_assert(std::is_same_v<decltype(&impl), PFN_##api##_v##version>, #api); \
  entries[#api][version] = reinterpret_cast<void*>(&impl);

// By name, then by the first version of each ABI.
using EntryTable = std::map<std::string, std::map<int, void*>>;
void AddMemoryEntries(EntryTable& entries);
void AddStreamEntries(EntryTable& entries);

}  // namespace fake_cuda
