// Host functions beside a working stream (see side_stream.h).
#include "loaders/cuda/side_stream.h"

#if OUTRIDER_HAVE_CUDA

namespace outrider::cuda {

Status LaunchHostFuncAfter(const Driver& d, SideStream* side, CUstream working, CUhostFn fn,
                           void* arg) {
  if (side->stream == nullptr) {
    CUstream stream = nullptr;
    OUTRIDER_RETURN_IF_ERROR(Check(d, d.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
                                   "cuStreamCreate (a stream for host functions)"));
    CUevent passed = nullptr;
    if (Status st = Check(d, d.cuEventCreate(&passed, CU_EVENT_DISABLE_TIMING),
                          "cuEventCreate (a stream for host functions)");
        !st.ok()) {
      (void)d.cuStreamDestroy(stream);
      return st;
    }
    *side = SideStream{stream, passed};
  }
  OUTRIDER_RETURN_IF_ERROR(
      Check(d, d.cuEventRecord(side->passed, working), "cuEventRecord (before a host function)"));
  OUTRIDER_RETURN_IF_ERROR(Check(d, d.cuStreamWaitEvent(side->stream, side->passed, 0),
                                 "cuStreamWaitEvent (before a host function)"));
  return Check(d, d.cuLaunchHostFunc(side->stream, fn, arg), "cuLaunchHostFunc");
}

void DestroySideStream(const Driver& d, SideStream* side) {
  if (side->stream == nullptr) return;
  (void)d.cuEventDestroy(side->passed);
  (void)d.cuStreamDestroy(side->stream);
  *side = SideStream{};
}

}  // namespace outrider::cuda

#endif
