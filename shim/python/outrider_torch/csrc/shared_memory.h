// Tensors whose storage lies in memory shared with the agent (the connection's arena or pooled
// regions). A collective on such a tensor hands the agent the tensor's own memory: no staging
// buffer, no copy in before the op and none out after it. They come from outrider_torch.empty()
// or from any CPU allocation made while a thread routes its allocations here
// (outrider_torch.shared_memory(), outrider_torch.shared_buckets(ddp) for DDP's gradient buckets).
#pragma once

#include <ATen/ATen.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace outrider::torch_backend {

class Connection;

// What the backend copied between tensors and shared memory since the process started, and how
// many tensors it handed to the agent in place instead. Any thread.
struct CopyCounters {
  std::atomic<uint64_t> bytes_in{0};          // tensors -> staging buffers
  std::atomic<uint64_t> bytes_out{0};         // staging buffers -> tensors
  std::atomic<uint64_t> tensors_staged{0};    // tensors that went through a staging buffer
  std::atomic<uint64_t> tensors_in_place{0};  // tensors the agent used where they lie
};
CopyCounters& Copies();

// `bytes` (> 0) of shared memory of the process's connection as a uint8 CPU tensor (64-byte
// aligned; freed when its storage is). Throws without an open connection (no outrider process
// group yet).
at::Tensor SharedBytes(size_t bytes);

// Whether this thread's CPU tensor allocations go to shared memory (while a connection is open;
// otherwise to PyTorch's allocator as always). Returns the previous setting. The first call
// installs the routing allocator in front of PyTorch's CPU allocator, for good: other threads,
// and this one with routing off, allocate as before.
bool SetSharedAllocation(bool on);

// The start of `t`'s data if all of it lies in one shared-memory block of `conn` (and `t` is
// contiguous, not empty, and has no lazy conjugate or negative bit), else null.
void* SharedData(const Connection& conn, const at::Tensor& t);

// The agent may still write the block holding `p` (its op timed out or was abandoned): the block
// is never reused, only dropped from the registry when its tensor goes.
void AbandonShared(const void* p);

}  // namespace outrider::torch_backend
