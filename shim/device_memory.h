// GPU memory as the client sees it: whether a pointer is device memory, and the GPU allocations
// registered with the agent (gpu_mode ipc), exported as a cuMem allocation's fd or a cudaMalloc
// allocation's legacy CUDA IPC handle.
#pragma once

#include <cstdint>

#include "base/status.h"

namespace outrider::cuda {
struct Driver;
}  // namespace outrider::cuda

namespace outrider::shim {

class Connection;
class Regions;

// Thread-safety: one thread at a time (the owning Client's); IsDevice() from any thread.
class DeviceMemory {
 public:
  DeviceMemory(Connection* conn, Regions* regions) : conn_(conn), regions_(regions) {}

  // Whether `p` is device memory (never without the driver loaded: a process with device memory
  // has it loaded).
  static bool IsDevice(const void* p);
  // Whether [p, p + bytes) lies inside one GPU allocation (true for memory that is none).
  static bool InOneAllocation(const cuda::Driver& d, const void* p, uint64_t bytes);
  // Registers the GPU allocation holding [p, p + bytes) with the agent, once (again if the
  // allocation at its address is a new one).
  Status Register(const cuda::Driver& d, const void* p, uint64_t bytes, const char* which);

 private:
  Connection* conn_;  // Not owned; outlives this.
  Regions* regions_;  // Not owned; outlives this.
};

}  // namespace outrider::shim
