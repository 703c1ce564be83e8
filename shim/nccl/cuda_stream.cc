// GPU time, capture checks and copies on the callers' CUDA streams (cuda_stream.h).
#include "shim/nccl/cuda_stream.h"

#include <deque>
#include <vector>

#include "base/mutex.h"
#include "shim/nccl/call_stats.h"

namespace outrider::shim {
namespace {

struct Timer {
  Mutex mu;
  const cuda::Driver* d OUTRIDER_GUARDED_BY(mu) = nullptr;
  bool tried OUTRIDER_GUARDED_BY(mu) = false;
  std::deque<Timing> pending OUTRIDER_GUARDED_BY(mu);  // end recorded, oldest first
  std::vector<CUevent> spare OUTRIDER_GUARDED_BY(mu);
};
Timer& TheTimer() {
  static auto* t = new Timer;
  return *t;
}

const cuda::Driver* Driver(Timer& t) OUTRIDER_REQUIRES(t.mu) {
  if (!t.tried) {
    t.tried = true;
    auto d = cuda::Load();
    if (d.ok()) t.d = *d;
  }
  return t.d;
}

CUevent NewEvent(Timer& t) OUTRIDER_REQUIRES(t.mu) {
  if (!t.spare.empty()) {
    CUevent e = t.spare.back();
    t.spare.pop_back();
    return e;
  }
  CUevent e = nullptr;
  return t.d->cuEventCreate(&e, CU_EVENT_DEFAULT) == CUDA_SUCCESS ? e : nullptr;
}

// Reads the times of calls whose end event completed (oldest first; stops at the first still
// running).
void HarvestLocked(Timer& t) OUTRIDER_REQUIRES(t.mu) {
  while (!t.pending.empty()) {
    Timing& x = t.pending.front();
    CUresult rc = t.d->cuEventQuery(x.end);
    if (rc == CUDA_ERROR_NOT_READY) break;
    float ms = 0;
    if (rc == CUDA_SUCCESS && t.d->cuEventElapsedTime(&ms, x.start, x.end) == CUDA_SUCCESS &&
        ms >= 0) {
      Telemetry().Time(x.comm, x.op, static_cast<uint64_t>(static_cast<double>(ms) * 1e6));
    }
    t.spare.push_back(x.start);
    t.spare.push_back(x.end);
    t.pending.pop_front();
  }
}

}  // namespace

bool StartTiming(Timing* x, cudaStream_t stream) {
  Timer& t = TheTimer();
  MutexLock l(&t.mu);
  if (Driver(t) == nullptr) return false;
  auto s = reinterpret_cast<CUstream>(stream);
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  if (t.d->cuStreamIsCapturing(s, &capture) != CUDA_SUCCESS ||
      capture != CU_STREAM_CAPTURE_STATUS_NONE)
    return false;
  x->start = NewEvent(t);
  x->end = NewEvent(t);
  x->stream = s;
  if (x->start == nullptr || x->end == nullptr || t.d->cuEventRecord(x->start, s) != CUDA_SUCCESS) {
    if (x->start != nullptr) t.spare.push_back(x->start);
    if (x->end != nullptr) t.spare.push_back(x->end);
    return false;
  }
  return true;
}

void EndTiming(Timing x) {
  Timer& t = TheTimer();
  MutexLock l(&t.mu);
  if (t.d->cuEventRecord(x.end, x.stream) != CUDA_SUCCESS) {
    t.spare.push_back(x.start);
    t.spare.push_back(x.end);
    return;
  }
  t.pending.push_back(x);
  HarvestLocked(t);
}

void Harvest() {
  Timer& t = TheTimer();
  MutexLock l(&t.mu);
  if (t.d != nullptr) HarvestLocked(t);
}

bool Capturing(cudaStream_t stream) {
  Timer& t = TheTimer();
  MutexLock l(&t.mu);
  if (Driver(t) == nullptr) return false;
  CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
  return t.d->cuStreamIsCapturing(reinterpret_cast<CUstream>(stream), &st) != CUDA_SUCCESS ||
         st != CU_STREAM_CAPTURE_STATUS_NONE;
}

bool CopyOnStream(void* dst, const void* src, size_t bytes, cudaStream_t stream) {
  Timer& t = TheTimer();
  MutexLock l(&t.mu);
  return Driver(t) != nullptr &&
         t.d->cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst), reinterpret_cast<CUdeviceptr>(src),
                            bytes, reinterpret_cast<CUstream>(stream)) == CUDA_SUCCESS;
}

}  // namespace outrider::shim
