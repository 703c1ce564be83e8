// The agent's GPU memory: CUDA opened once, on first use.
#include "agent/memory/gpu_memory.h"

#include <sys/eventfd.h>

namespace outrider::agent {

GpuMemory::GpuMemory(PinnedPool::Options pinned)
    : pinned_(pinned), completion_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}

GpuMemory::~GpuMemory() {
  if (started() != nullptr) (void)completion_.release();
}

Result<CudaMemory*> GpuMemory::Get() {
  std::call_once(open_, [this] {
    Result<std::unique_ptr<CudaMemory>> cuda = CudaMemory::Open(pinned_, completion_.get());
    if (cuda.ok()) {
      started_.store(cuda->release(), std::memory_order_release);
    } else {
      failed_ = cuda.status();
    }
  });
  if (CudaMemory* cuda = started()) return cuda;
  return failed_;
}

}  // namespace outrider::agent
