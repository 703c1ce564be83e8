// DeviceMemory: the driver's view of a pointer (memory type, allocation range, buffer id) and the
// export of a GPU allocation to the agent.
#include "shim/device_memory.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "loaders/cuda/driver.h"
#include "shim/connection.h"
#include "shim/regions.h"

namespace outrider::shim {

#if OUTRIDER_HAVE_CUDA

bool DeviceMemory::IsDevice(const void* p) {
  if (p == nullptr) return false;
  auto d = cuda::LoadIfPresent();  // a process with device memory has the driver loaded
  if (!d.ok()) return false;
  unsigned int type = 0;
  return (*d)->cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                     reinterpret_cast<CUdeviceptr>(p)) == CUDA_SUCCESS &&
         type == CU_MEMORYTYPE_DEVICE;
}

bool DeviceMemory::InOneAllocation(const cuda::Driver& d, const void* p, uint64_t bytes) {
  auto addr = reinterpret_cast<CUdeviceptr>(p);
  CUdeviceptr base = 0;
  size_t size = 0;
  // Not device memory at all: Register says so.
  if (d.cuMemGetAddressRange(&base, &size, addr) != CUDA_SUCCESS) return true;
  return addr - base + bytes <= size;
}

Status DeviceMemory::Register(const cuda::Driver& d, const void* p, uint64_t bytes,
                              const char* which) {
  auto addr = reinterpret_cast<CUdeviceptr>(p);
  CUdeviceptr base = 0;
  size_t size = 0;
  if (d.cuMemGetAddressRange(&base, &size, addr) != CUDA_SUCCESS) {
    return InvalidArgument(std::string(which) +
                           " buffer is neither shared memory nor device memory");
  }
  if (addr - base + bytes > size) {
    return InvalidArgument(std::string(which) + " buffer of " + std::to_string(bytes) +
                           " bytes runs past its GPU allocation (" + std::to_string(size) +
                           " bytes at offset " + std::to_string(addr - base) + ")");
  }
  unsigned long long buffer_id = 0;
  OUTRIDER_RETURN_IF_ERROR(
      cuda::Check(d, d.cuPointerGetAttribute(&buffer_id, CU_POINTER_ATTRIBUTE_BUFFER_ID, addr),
                  "cuPointerGetAttribute(BUFFER_ID)"));
  if (auto it = regions_->Find(static_cast<uintptr_t>(base)); it != regions_->end()) {
    if (it->second.device && it->second.bytes == size && it->second.buffer_id == buffer_id)
      return Status::Ok();
    // Freed and allocated again at the same address: the agent's import is of the old memory.
    OUTRIDER_RETURN_IF_ERROR(regions_->Release(reinterpret_cast<void*>(it->first)));
  }
  int ordinal = 0;
  CUdevice dev = 0;
  CUuuid uuid{};
  OUTRIDER_RETURN_IF_ERROR(
      cuda::Check(d, d.cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, addr),
                  "cuPointerGetAttribute(DEVICE_ORDINAL)"));
  OUTRIDER_RETURN_IF_ERROR(cuda::Check(d, d.cuDeviceGet(&dev, ordinal), "cuDeviceGet"));
  OUTRIDER_RETURN_IF_ERROR(cuda::Check(d, d.cuDeviceGetUuid(&uuid, dev), "cuDeviceGetUuid"));
  ipc::RegisterRegion msg{};
  uint32_t rid = conn_->NextRequestId();
  ipc::InitMsgHeader(&msg.header, ipc::MsgType::kRegisterRegion, sizeof(msg) - sizeof(msg.header),
                     rid);
  msg.bytes = size;
  std::string name = cuda::UuidString(uuid);
  std::memcpy(msg.device, name.data(), std::min(name.size(), sizeof(msg.device) - 1));
  // A cuMem allocation crosses as a file descriptor; anything else (cudaMalloc) as a legacy handle.
  UniqueFd fd;
  CUmemGenericAllocationHandle h = 0;
  if (d.cuMemRetainAllocationHandle(&h, reinterpret_cast<void*>(base)) == CUDA_SUCCESS) {
    int raw = -1;
    CUresult rc =
        d.cuMemExportToShareableHandle(&raw, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
    (void)d.cuMemRelease(h);
    OUTRIDER_RETURN_IF_ERROR(
        cuda::Check(d, rc,
                    "exporting a cuMem allocation (create it with "
                    "CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR in requestedHandleTypes)"));
    fd = UniqueFd(raw);
    msg.kind = static_cast<uint32_t>(ipc::RegionKind::kCudaFd);
  } else {
    CUipcMemHandle ih{};
    OUTRIDER_RETURN_IF_ERROR(cuda::Check(d, d.cuIpcGetMemHandle(&ih, base), "cuIpcGetMemHandle"));
    static_assert(sizeof(ih.reserved) == sizeof(msg.ipc_handle));
    std::memcpy(msg.ipc_handle, ih.reserved, sizeof(msg.ipc_handle));
    msg.kind = static_cast<uint32_t>(ipc::RegionKind::kCudaIpc);
  }
  int f = fd.get();
  OUTRIDER_ASSIGN_OR_RETURN(
      ipc::RegionReply reply,
      conn_->Request(&msg, sizeof(msg), fd.valid() ? &f : nullptr, fd.valid() ? 1 : 0, rid));
  OUTRIDER_RETURN_IF_ERROR(
      FromReply(reply.code, reply.message).Annotate("registering a GPU allocation"));
  regions_->AddDevice(
      static_cast<uintptr_t>(base),
      Regions::Region{reply.region_id, size, ipc::Mapping(), UniqueFd(), true, buffer_id});
  return Status::Ok();
}

#else

bool DeviceMemory::IsDevice(const void*) { return false; }
bool DeviceMemory::InOneAllocation(const cuda::Driver&, const void*, uint64_t) { return true; }
Status DeviceMemory::Register(const cuda::Driver&, const void*, uint64_t, const char*) {
  return FailedPrecondition("built without CUDA");
}

#endif

}  // namespace outrider::shim
