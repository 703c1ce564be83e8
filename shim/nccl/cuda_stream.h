// The interposer's work on its callers' CUDA streams, through the driver API (loaders/cuda/,
// loaded at the first need; without a driver none of it happens): the GPU time of a call from CUDA
// events recorded around it (read once the end event completed, never waited for), whether a
// stream is under graph capture, and a device-to-device copy.
// Thread-safety: every function from any thread.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "ipc/nccl_stats_wire.h"
#include "loaders/cuda/driver.h"
#include "shim/nccl/stats_sender.h"

namespace outrider::shim {

// One timed call: its events, stream, and what its time is counted under.
struct Timing {
  CUevent start = nullptr, end = nullptr;
  CUstream stream = nullptr;
  NcclStatsSender::Comm* comm = nullptr;
  ipc::NcclOp op = ipc::NcclOp::kAllReduce;
};

// Starts timing a call on `stream` (not under capture): false if it is not timed.
bool StartTiming(Timing* x, cudaStream_t stream);
// Records the end of a call StartTiming started; its time is counted once the event completed.
void EndTiming(Timing x);
// Counts the times of the calls whose end event completed.
void Harvest();

// Whether `stream` is under CUDA graph capture (also when the driver cannot say); false without
// a driver.
bool Capturing(cudaStream_t stream);
// Queues a device-to-device copy on `stream`: false if it could not.
bool CopyOnStream(void* dst, const void* src, size_t bytes, cudaStream_t stream);

}  // namespace outrider::shim
