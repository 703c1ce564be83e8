// What needs PyTorch's CUDA library (built where PyTorch has libc10_cuda): the CUstream behind a
// c10 stream, and the caching allocator's trace hook, through which segments it gives back to
// CUDA, whole (cudaFree) or in part (an expandable segment's unmap), are noted for the connection
// to release from the agent (cuda_ops.h).
#include <c10/cuda/CUDAStream.h>
#if OUTRIDER_TORCH_TRACE_HOOK
#include <c10/cuda/CUDACachingAllocator.h>
#endif

#include <cstdio>
#include <exception>

#include "shim/python/outrider_torch/csrc/cuda_ops.h"

namespace outrider::torch_backend {

void* NativeStream(const c10::Stream& stream) {
  return c10::cuda::CUDAStream(c10::cuda::CUDAStream::UNCHECKED, stream).stream();
}

bool HookCudaAllocator() {
#if OUTRIDER_TORCH_TRACE_HOOK
  namespace alloc = c10::cuda::CUDACachingAllocator;
  try {
    alloc::attachAllocatorTraceTracker([](const alloc::TraceEntry& e) {
      // Called under the allocator's lock: note the range, nothing more.
      if (e.action_ == alloc::TraceEntry::SEGMENT_FREE ||
          e.action_ == alloc::TraceEntry::SEGMENT_UNMAP) {
        NoteDeviceFree(static_cast<uintptr_t>(e.addr_), static_cast<size_t>(e.size_));
      }
    });
    return true;
  } catch (const std::exception&
               e) {  // an allocator without the hook (a pluggable one, cudaMallocAsync)
    std::fprintf(stderr,
                 "outrider: GPU memory PyTorch frees stays imported by the agent until the process "
                 "leaves: %s\n",
                 e.what());
    return false;
  }
#else
  return false;  // this PyTorch's allocator has no trace hook
#endif
}

}  // namespace outrider::torch_backend
