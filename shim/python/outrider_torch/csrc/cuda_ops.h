// Pieces of the backend's ops on CUDA tensors (process_group.cc). The backend reaches CUDA
// through c10's device-generic interfaces only: it links no CUDA library, so one build serves
// CPU-only and CUDA PyTorch alike.
#pragma once

#include <ATen/ATen.h>
#include <c10/core/Stream.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace outrider::torch_backend {

// The calling thread's current stream on `device`.
c10::Stream CurrentStream(c10::Device device);
// The CUstream behind `stream` (NULL for the legacy default stream).
void* NativeStream(const c10::Stream& stream);
// `t` itself when it is contiguous, else a contiguous copy (queued on the current stream).
at::Tensor Dense(const at::Tensor& t);
// Copies `result` (shaped like `t`) into `t` on the current stream; empty when `result` is `t`.
std::function<void()> CopyInto(at::Tensor result, at::Tensor t);
// `ts` flattened one after another into a new tensor on `like`'s device and dtype.
at::Tensor Pack(const std::vector<at::Tensor>& ts, const at::Tensor& like);
// The inverse of Pack: fills `ts` from consecutive elements of `flat`.
void Unpack(const at::Tensor& flat, std::vector<at::Tensor>& ts);

// The caching allocator gave GPU memory [addr, addr + bytes) back to CUDA (any thread; never
// blocks on the backend, calls no PyTorch): the connection's worker releases the agent's
// imports of allocations inside it before its next op.
void NoteDeviceFree(uintptr_t addr, size_t bytes);
// Hooks NoteDeviceFree into PyTorch's CUDA caching allocator, once per process; false where
// this build has no hook (PyTorch without CUDA).
bool HookCudaAllocator();

}  // namespace outrider::torch_backend
