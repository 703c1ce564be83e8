// The fake CUDA driver's streams (see fake_cuda.cc): streams as worker threads, events, capture,
// 64-bit stream waits and writes, host functions.
#include "fake_cuda_internal.h"

namespace fake_cuda {

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

namespace {

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

}  // namespace

void AddStreamEntries(EntryTable& entries) {
  FAKE_ENTRY(cuStreamGetCtx, 9020, StreamGetCtx)
  FAKE_ENTRY(cuStreamCreate, 2000, StreamCreate)
  FAKE_ENTRY(cuStreamDestroy, 4000, StreamDestroy)
  FAKE_ENTRY(cuStreamSynchronize, 2000, StreamSynchronize)
  FAKE_ENTRY(cuStreamQuery, 2000, StreamQuery)
  FAKE_ENTRY(cuStreamWriteValue64, 11070, StreamWriteValue64)
  FAKE_ENTRY(cuStreamWaitValue64, 11070, StreamWaitValue64)
  FAKE_ENTRY(cuLaunchHostFunc, 10000, LaunchHostFunc)
  FAKE_ENTRY(cuStreamWaitEvent, 3020, StreamWaitEvent)
  FAKE_ENTRY(cuEventCreate, 2000, EventCreate)
  FAKE_ENTRY(cuEventRecord, 2000, EventRecord)
  FAKE_ENTRY(cuEventQuery, 2000, EventQuery)
  FAKE_ENTRY(cuEventElapsedTime, 12080, EventElapsedTime)
  FAKE_ENTRY(cuEventDestroy, 4000, EventDestroy)
  FAKE_ENTRY(cuStreamIsCapturing, 10000, StreamIsCapturing)
  FAKE_ENTRY(cuStreamBeginCapture, 10010, StreamBeginCapture)
  FAKE_ENTRY(cuStreamEndCapture, 10000, StreamEndCapture)
  FAKE_ENTRY(cuStreamGetCtx, 12050, StreamGetCtx_v2)
}

}  // namespace fake_cuda
