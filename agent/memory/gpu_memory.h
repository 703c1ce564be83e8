// The agent's GPU memory (docs/design.md#gpu-path): its CUDA, opened on first use, and the eventfd
// its streams' finished work writes. The agent's GPU path makes one and hands it to every part
// that imports, copies or launches on GPUs (the region tables, staging, the NCCL paths); a test
// makes its own over the fake driver.
#pragma once

#include <atomic>
#include <mutex>

#include "agent/memory/cuda_memory.h"
#include "agent/memory/pinned_pool.h"
#include "base/status.h"
#include "ipc/unique_fd.h"

namespace outrider::agent {

// Thread-safety: any thread. The CudaMemory it hands out is loop-thread only except where
// cuda_memory.h says.
class GpuMemory {
 public:
  // `pinned`: how pinned staging memory is bounded and given back.
  explicit GpuMemory(PinnedPool::Options pinned = {0, uint64_t{10'000} * 1'000'000});
  // CUDA once opened is never closed, nor its completion fd: imports and pinned buffers that
  // the last ops hold may outlive the agent's parts, and the driver's threads may still write the
  // fd. The process ends soon after.
  ~GpuMemory();
  GpuMemory(const GpuMemory&) = delete;
  GpuMemory& operator=(const GpuMemory&) = delete;

  // CUDA, opened on the first call: why not, if this agent cannot use GPUs (built without CUDA,
  // no driver, no GPU). Every later call answers the same.
  Result<CudaMemory*> Get();
  // CUDA if opened already, else null (never opens it).
  CudaMemory* started() const { return started_.load(std::memory_order_acquire); }
  // An eventfd (non-blocking) that CudaMemory::WakeWhenDone signals from the driver's thread;
  // the agent's loop waits on it. Valid from construction, GPU or not.
  int completion_fd() const { return completion_.get(); }

 private:
  PinnedPool::Options pinned_;
  UniqueFd completion_;
  std::once_flag open_;
  Status failed_;                              // why Open failed, once it did
  std::atomic<CudaMemory*> started_{nullptr};  // owned once opened, never freed (see above)
};

}  // namespace outrider::agent
