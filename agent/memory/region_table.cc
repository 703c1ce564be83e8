// Region import and lookup for one client.
#include "agent/memory/region_table.h"

#include <string>

namespace outrider::agent {
namespace {

struct HostImport {
  UniqueFd fd;
  ipc::Mapping mapping;
};

}  // namespace

const char* MemoryKindName(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::kHost: return "host";
    case MemoryKind::kCudaFd: return "cuda-fd";
    case MemoryKind::kCudaIpc: return "cuda-ipc";
  }
  return "unknown";
}

Result<uint32_t> RegionTable::ImportHost(std::vector<UniqueFd> fds, uint64_t bytes) {
  if (fds.size() != 1) {
    return InvalidArgument("region registration must carry exactly one memfd, got " + std::to_string(fds.size()));
  }
  if (regions_.size() >= max_regions_) {
    return ResourceExhausted("client already holds " + std::to_string(regions_.size()) +
                             " regions (max_regions_per_client)");
  }
  if (bytes == 0 || bytes > max_region_bytes_) {
    return InvalidArgument("region size " + std::to_string(bytes) + " is outside [1, max_region_bytes=" +
                           std::to_string(max_region_bytes_) + "]");
  }
  OUTRIDER_ASSIGN_OR_RETURN(size_t size, ipc::CheckSealedMemfd(fds[0].get()));
  if (size != bytes) {
    return InvalidArgument("memfd is " + std::to_string(size) + " bytes, registration says " + std::to_string(bytes));
  }
  OUTRIDER_ASSIGN_OR_RETURN(ipc::Mapping mapping, ipc::MapShared(fds[0].get(), bytes));
  uint32_t id = next_id_++;
  Region r;
  r.id = id;
  r.span = BufferSpan::Host(mapping.data(), bytes);
  r.import = std::make_shared<const HostImport>(HostImport{std::move(fds[0]), std::move(mapping)});
  regions_.emplace(id, std::move(r));
  return id;
}

Status RegionTable::Release(uint32_t id) {
  if (regions_.erase(id) == 0) return InvalidArgument("region " + std::to_string(id) + " is not registered");
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
