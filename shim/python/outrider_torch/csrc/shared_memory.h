// Tensors whose storage lies in memory the agent can share (the process's SharedHeap). A
// collective on such a tensor hands the agent the tensor's own memory: no staging buffer, no copy
// in before the op and none out after it. Once an outrider process group exists, every CPU
// allocation of at least $OUTRIDER_TORCH_SHARED_MIN_BYTES (default 64 KiB) comes from there, from
// any thread (unless $OUTRIDER_TORCH_SHARED_ALLOC=off); so do all of a thread's allocations while
// it routes them there (outrider_torch.shared_memory()), and outrider_torch.empty().
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

// `bytes` (> 0) of shared memory as a uint8 CPU tensor (64-byte aligned; freed when its storage
// is). Throws if no shared memory can be had (a fork child of the process that made the heap).
at::Tensor SharedBytes(size_t bytes);

// Whether this thread's CPU tensor allocations go to shared memory. Returns the previous setting.
// The first call installs the routing allocator in front of PyTorch's CPU allocator, for good:
// other threads, and this one with routing off, allocate as before (or by size, below). Throws if
// another CPU allocator took precedence.
bool SetSharedAllocation(bool on);

// Every thread's CPU allocations of at least `min_bytes` go to shared memory from now on (0:
// none). Installs the routing allocator like SetSharedAllocation; false (and nothing routed) if
// another CPU allocator took precedence.
bool SetSharedAllocationFrom(size_t min_bytes);
// The threshold in force (0: off).
size_t SharedAllocationFrom();
// SetSharedAllocationFrom with what the environment says ($OUTRIDER_TORCH_SHARED_ALLOC=off: 0;
// else $OUTRIDER_TORCH_SHARED_MIN_BYTES, default 64 KiB), once per process: the first outrider
// process group calls it.
void EnableSharedAllocationFromEnv();

// This thread's allocations go to shared memory while it lives (the backend's own buffers), where
// the routing allocator is in place and OUTRIDER_TORCH_SHARED_ALLOC is not off (otherwise, and in
// a fork child, they go where they always do).
class ScopedSharedAllocation {
 public:
  ScopedSharedAllocation();
  ~ScopedSharedAllocation();
  ScopedSharedAllocation(const ScopedSharedAllocation&) = delete;
  ScopedSharedAllocation& operator=(const ScopedSharedAllocation&) = delete;

 private:
  bool previous_;
};

// Worker thread of `conn`: where the agent finds `t`'s data if all of it lies in shared memory
// (and `t` is contiguous, not empty, and has no lazy conjugate or negative bit): the address of
// its bytes in `conn`'s mapping of the heap (which registers the heap's segment with the agent on
// first use), else null.
void* SharedData(Connection& conn, const at::Tensor& t);

// The agent may still write the shared memory at `p` (a tensor's data; its op timed out or was
// abandoned): its block is never reused.
void AbandonShared(const void* p);

}  // namespace outrider::torch_backend
