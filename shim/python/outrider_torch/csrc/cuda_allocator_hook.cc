// The caching allocator's trace hook (built where PyTorch has CUDA, linked to its libc10_cuda):
// segments it gives back to CUDA, whole (cudaFree) or in part (an expandable segment's unmap),
// are noted for the connection to release from the agent (cuda_ops.h).
#include <c10/cuda/CUDACachingAllocator.h>

#include "shim/python/outrider_torch/csrc/cuda_ops.h"

namespace outrider::torch_backend {

bool HookCudaAllocator() {
  namespace alloc = c10::cuda::CUDACachingAllocator;
  alloc::attachAllocatorTraceTracker([](const alloc::TraceEntry& e) {
    // Called under the allocator's lock: note the range, nothing more.
    if (e.action_ == alloc::TraceEntry::SEGMENT_FREE || e.action_ == alloc::TraceEntry::SEGMENT_UNMAP) {
      NoteDeviceFree(static_cast<uintptr_t>(e.addr_), static_cast<size_t>(e.size_));
    }
  });
  return true;
}

}  // namespace outrider::torch_backend
