// Region import and lookup for one client.
#include "agent/memory/region_table.h"

#include <cstring>
#include <string>

#include "agent/memory/cuda_memory.h"
#include "agent/memory/gpu_memory.h"

namespace outrider::agent {
namespace {

struct HostImport {
  UniqueFd fd;
  ipc::Mapping mapping;
};

}  // namespace

const char* MemoryKindName(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::kHost:
      return "host";
    case MemoryKind::kCudaFd:
      return "cuda-fd";
    case MemoryKind::kCudaIpc:
      return "cuda-ipc";
  }
  return "unknown";
}

Result<uint32_t> RegionTable::ImportHost(std::vector<UniqueFd> fds, uint64_t bytes) {
  if (fds.size() != 1) {
    return InvalidArgument("region registration must carry exactly one memfd, got " +
                           std::to_string(fds.size()));
  }
  OUTRIDER_RETURN_IF_ERROR(CheckRoom(bytes));
  OUTRIDER_ASSIGN_OR_RETURN(size_t size, ipc::CheckSealedMemfd(fds[0].get()));
  if (size != bytes) {
    return InvalidArgument("memfd is " + std::to_string(size) + " bytes, registration says " +
                           std::to_string(bytes));
  }
  OUTRIDER_ASSIGN_OR_RETURN(ipc::Mapping mapping, ipc::MapShared(fds[0].get(), bytes));
  BufferSpan span = BufferSpan::Host(mapping.data(), bytes);
  return Add(span,
             std::make_shared<const HostImport>(HostImport{std::move(fds[0]), std::move(mapping)}));
}

Result<uint32_t> RegionTable::ImportCuda(const ipc::RegisterRegion& msg, std::vector<UniqueFd> fds,
                                         bool trusted, GpuMemory& memory) {
  auto kind = static_cast<ipc::RegionKind>(msg.kind);
  size_t want_fds = kind == ipc::RegionKind::kCudaFd ? 1 : 0;
  if (fds.size() != want_fds) {
    return InvalidArgument("a GPU region registration must carry " + std::to_string(want_fds) +
                           " fds, got " + std::to_string(fds.size()));
  }
  OUTRIDER_RETURN_IF_ERROR(CheckRoom(msg.bytes));
  size_t uuid_len = strnlen(msg.device, sizeof(msg.device));
  if (uuid_len == 0 || uuid_len == sizeof(msg.device))
    return InvalidArgument("a GPU region must name its GPU's UUID");
  std::string uuid(msg.device, uuid_len);
  if (kind == ipc::RegionKind::kCudaIpc && !trusted) {
    return PermissionDenied(
        "legacy CUDA IPC handles are accepted only from the agent's own user or root "
        "(their bytes can be forged): register cuMem allocations instead");
  }
  OUTRIDER_ASSIGN_OR_RETURN(CudaMemory * cuda, memory.Get());
  BufferSpan span;
  std::shared_ptr<const void> import;
  if (kind == ipc::RegionKind::kCudaFd) {
    OUTRIDER_ASSIGN_OR_RETURN(import, cuda->ImportFd(std::move(fds[0]), msg.bytes, uuid, &span));
  } else {
    OUTRIDER_ASSIGN_OR_RETURN(import,
                              cuda->ImportIpcHandle(msg.ipc_handle, msg.bytes, uuid, &span));
  }
  return Add(span, std::move(import));
}

Status RegionTable::CheckRoom(uint64_t bytes) const {
  if (regions_.size() >= max_regions_) {
    return ResourceExhausted("client already holds " + std::to_string(regions_.size()) +
                             " regions (max_regions_per_client)");
  }
  if (bytes == 0 || bytes > max_region_bytes_) {
    return InvalidArgument("region size " + std::to_string(bytes) +
                           " is outside [1, max_region_bytes=" + std::to_string(max_region_bytes_) +
                           "]");
  }
  return Status::Ok();
}

uint32_t RegionTable::Add(BufferSpan span, std::shared_ptr<const void> import) {
  uint32_t id = next_id_++;
  Region r;
  r.id = id;
  r.span = span;
  r.import = std::move(import);
  regions_.emplace(id, std::move(r));
  return id;
}

Status RegionTable::Release(uint32_t id) {
  if (regions_.erase(id) == 0)
    return InvalidArgument("region " + std::to_string(id) + " is not registered");
  return Status::Ok();
}

const Region* RegionTable::Find(uint32_t id) const {
  auto it = regions_.find(id);
  return it == regions_.end() ? nullptr : &it->second;
}

uint64_t RegionTable::bytes() const {
  uint64_t total = 0;
  for (const auto& [id, r] : regions_) total += r.span.length;
  return total;
}

}  // namespace outrider::agent
