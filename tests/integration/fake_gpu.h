// Test helpers for trainers on the fake CUDA driver (tests/fakes/cuda/) against a real agent:
// child-side CUDA setup, allocations of both kinds, and what the agent has imported.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ipc/event_fd.h"
#include "loaders/cuda/driver.h"
#include "tests/support/test_support.h"

namespace outrider::testing {

inline constexpr size_t kVmmBytes = size_t{2} << 20;  // the fake driver's granularity

// The child's CUDA (the fake driver, primary context current), in gpu_mode `mode`. Exits 80+.
inline const cuda::Driver& ChildCuda(const char* mode = "ipc") {
  ::setenv("OUTRIDER_CUDA_DRIVER", FAKE_CUDA_DRIVER, 1);
  ::setenv("OUTRIDER_GPU_MODE", mode, 1);
  auto d = cuda::Load();
  if (!d.ok()) std::_Exit(80);
  CUcontext ctx = nullptr;
  if ((*d)->cuDevicePrimaryCtxRetain(&ctx, 0) != CUDA_SUCCESS ||
      (*d)->cuCtxSetCurrent(ctx) != CUDA_SUCCESS)
    std::_Exit(81);
  return **d;
}

// An agent that loads the fake driver too (it inherits the environment): what gpu_mode ipc needs.
inline std::unique_ptr<harness::AgentProcess> StartGpuAgent(
    std::vector<std::string> extra_args = {}) {
  ::setenv("OUTRIDER_CUDA_DRIVER", FAKE_CUDA_DRIVER, 1);
  return StartAgent(std::move(extra_args));
}

// Device memory on GPU 0 that can be exported as a POSIX fd.
inline CUmemAllocationProp VmmProp() {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  return prop;
}

// A cuMem allocation of kVmmBytes that can be exported as a POSIX fd, mapped read-write here.
inline CUdeviceptr VmmAlloc(const cuda::Driver& d) {
  CUmemAllocationProp prop = VmmProp();
  CUmemGenericAllocationHandle h = 0;
  CUdeviceptr p = 0;
  if (d.cuMemCreate(&h, kVmmBytes, &prop, 0) != CUDA_SUCCESS) std::_Exit(82);
  if (d.cuMemAddressReserve(&p, kVmmBytes, 0, 0, 0) != CUDA_SUCCESS) std::_Exit(83);
  if (d.cuMemMap(p, kVmmBytes, 0, h, 0) != CUDA_SUCCESS) std::_Exit(84);
  CUmemAccessDesc access{};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  if (d.cuMemSetAccess(p, kVmmBytes, &access, 1) != CUDA_SUCCESS) std::_Exit(85);
  (void)d.cuMemRelease(h);
  return p;
}

// Two cuMem allocations of kVmmBytes mapped one after another in one reservation, as PyTorch's
// expandable segments grow: 2 * kVmmBytes of contiguous device memory, read-write here.
inline CUdeviceptr VmmSpan(const cuda::Driver& d) {
  CUmemAllocationProp prop = VmmProp();
  CUmemAccessDesc access{};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CUdeviceptr p = 0;
  if (d.cuMemAddressReserve(&p, 2 * kVmmBytes, 0, 0, 0) != CUDA_SUCCESS) std::_Exit(83);
  for (size_t k = 0; k < 2; ++k) {  // each page mapped and opened as the segment grows
    CUmemGenericAllocationHandle h = 0;
    if (d.cuMemCreate(&h, kVmmBytes, &prop, 0) != CUDA_SUCCESS) std::_Exit(82);
    if (d.cuMemMap(p + k * kVmmBytes, kVmmBytes, 0, h, 0) != CUDA_SUCCESS) std::_Exit(84);
    if (d.cuMemSetAccess(p + k * kVmmBytes, kVmmBytes, &access, 1) != CUDA_SUCCESS) std::_Exit(85);
    (void)d.cuMemRelease(h);
  }
  return p;
}

// Alltoallv of i32 blocks in device memory on stream `s`: rank i sends rank j `sent(i, j)`
// elements, element k of the block being (4 * i + j) * 1000000 + k, and rank j expects
// `expected(i, j)` of them. 0 once every block arrived right; the op's error code if it failed
// (its text in *why); 60+ for a CUDA call that failed, 69 for a wrong element.
using BlockCounts = std::function<int64_t(int from, int to)>;
inline int DeviceAlltoallv(outrider_client_t* c, const cuda::Driver& d, CUstream s, int rank,
                           int world, const BlockCounts& sent, const BlockCounts& expected,
                           std::string* why) {
  std::vector<int64_t> send_counts, recv_counts;
  std::vector<int32_t> out, in;
  for (int j = 0; j < world; ++j) {
    send_counts.push_back(sent(rank, j));
    recv_counts.push_back(expected(j, rank));
    for (int64_t k = 0; k < send_counts.back(); ++k)
      out.push_back((4 * rank + j) * 1000000 + static_cast<int32_t>(k));
  }
  int64_t incoming = 0;
  for (int64_t n : recv_counts) incoming += n;
  in.assign(static_cast<size_t>(incoming), -1);
  CUdeviceptr send = 0, recv = 0;
  if (d.cuMemAlloc(&send, out.size() * 4 + 4) != CUDA_SUCCESS ||
      d.cuMemAlloc(&recv, in.size() * 4 + 4) != CUDA_SUCCESS)
    return 60;
  if (d.cuMemcpyHtoDAsync(send, out.data(), out.size() * 4, s) != CUDA_SUCCESS) return 61;
  if (d.cuMemcpyHtoDAsync(recv, in.data(), in.size() * 4, s) != CUDA_SUCCESS) return 62;
  outrider_op_options_t o;
  outrider_op_options_init(&o);
  o.cuda_stream = s;
  outrider_op_t h = 0;
  int rc =
      outrider_alltoallv(c, reinterpret_cast<void*>(send), send_counts.data(),
                         reinterpret_cast<void*>(recv), recv_counts.data(), OUTRIDER_I32, &o, &h);
  if (rc == OUTRIDER_OK) rc = outrider_wait(c, h, 20000);
  if (rc != OUTRIDER_OK) {
    *why = outrider_last_error(c);
    return rc;
  }
  if (d.cuMemcpyDtoHAsync(in.data(), recv, in.size() * 4, s) != CUDA_SUCCESS ||
      d.cuStreamSynchronize(s) != CUDA_SUCCESS)
    return 63;
  size_t at = 0;
  for (int i = 0; i < world; ++i) {
    for (int64_t k = 0; k < recv_counts[static_cast<size_t>(i)]; ++k, ++at) {
      if (in[at] != (4 * i + rank) * 1000000 + static_cast<int32_t>(k)) {
        *why = "element " + std::to_string(k) + " from rank " + std::to_string(i) + " is " +
               std::to_string(in[at]);
        return 69;
      }
    }
  }
  (void)d.cuMemFree(send);
  (void)d.cuMemFree(recv);
  return 0;
}

// How many mappings of fake device memory the process has (the fake driver's memfds).
inline int DeviceMappings(pid_t pid) {
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  int n = 0;
  for (std::string line; std::getline(maps, line);) {
    if (line.find("fake-cuda-device") != std::string::npos) ++n;
  }
  return n;
}

// DeviceMappings(pid) once it is 0, or after 10 s. The agent closes a client's imports on its
// next loop turn after the client goes; nothing signals it, so the maps are read again.
inline int DeviceMappingsOnceClosed(pid_t pid) {
  uint64_t deadline = ipc::MonotonicNs() + uint64_t{10'000'000'000};
  while (DeviceMappings(pid) != 0 && ipc::MonotonicNs() < deadline) ipc::WaitReadable(-1, -1, 10);
  return DeviceMappings(pid);
}

}  // namespace outrider::testing
