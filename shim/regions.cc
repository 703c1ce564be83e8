// Regions: registering memfds with the agent and releasing them, the arena's allocations, and
// resolving buffer pointers to (region, offset, length).
#include "shim/regions.h"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "shim/connection.h"

namespace outrider::shim {

Regions::Regions(Connection* conn, uint64_t arena_bytes)
    : conn_(conn),
      arena_(std::make_unique<Arena>(arena_bytes, [this](size_t bytes) { return Create(bytes); })) {
}

Result<void*> Regions::Add(UniqueFd fd, size_t bytes) {
  OUTRIDER_ASSIGN_OR_RETURN(ipc::Mapping mapping, ipc::MapShared(fd.get(), bytes));
  OUTRIDER_ASSIGN_OR_RETURN(uint32_t id, Register(fd.get(), bytes));
  uint8_t* base = mapping.data();
  regions_.emplace(reinterpret_cast<uintptr_t>(base),
                   Region{id, bytes, std::move(mapping), std::move(fd)});
  return static_cast<void*>(base);
}

Result<uint32_t> Regions::Register(int fd, size_t bytes) {
  ipc::RegisterRegion msg{};
  uint32_t rid = conn_->NextRequestId();
  ipc::InitMsgHeader(&msg.header, ipc::MsgType::kRegisterRegion, sizeof(msg) - sizeof(msg.header),
                     rid);
  msg.bytes = bytes;
  OUTRIDER_ASSIGN_OR_RETURN(ipc::RegionReply reply, conn_->Request(&msg, sizeof(msg), &fd, 1, rid));
  OUTRIDER_RETURN_IF_ERROR(FromReply(reply.code, reply.message).Annotate("registering a region"));
  return reply.region_id;
}

Result<std::map<uint32_t, uint32_t>> Regions::Reregister() {
  std::map<uint32_t, uint32_t> ids;
  for (auto it = regions_.begin(); it != regions_.end();) {
    if (it->second.device) {
      it = regions_.erase(it);  // registered again when an op next names it
      continue;
    }
    Result<uint32_t> id = Register(it->second.fd.get(), it->second.bytes);
    if (!id.ok()) return id.status().Annotate("registering the client's memory again");
    ids[it->second.id] = *id;
    it->second.id = *id;
    ++it;
  }
  return ids;
}

Result<void*> Regions::Create(size_t bytes) {
  if (bytes == 0) return InvalidArgument("region size must be > 0");
  size_t rounded = (bytes + 4095) & ~size_t{4095};
  OUTRIDER_ASSIGN_OR_RETURN(UniqueFd fd, ipc::CreateSealedMemfd("outrider-region", rounded));
  return Add(std::move(fd), rounded);
}

Result<void*> Regions::RegisterFd(int fd, size_t bytes) {
  if (bytes == 0) return InvalidArgument("region size must be > 0");
  UniqueFd own(::fcntl(fd, F_DUPFD_CLOEXEC, 0));
  if (!own.valid()) return ErrnoStatus("duplicating the memfd", errno);
  int seals = ::fcntl(own.get(), F_GET_SEALS);
  if (seals < 0) return InvalidArgument("fd is not a memfd created with MFD_ALLOW_SEALING");
  if ((seals & ipc::kRequiredSeals) != ipc::kRequiredSeals) {
    if (::fcntl(own.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) != 0) {
      return ErrnoStatus("sealing the memfd against shrink and grow", errno);
    }
  }
  OUTRIDER_ASSIGN_OR_RETURN(size_t size, ipc::CheckSealedMemfd(own.get()));
  if (size != bytes) {
    return InvalidArgument("memfd is " + std::to_string(size) + " bytes, not " +
                           std::to_string(bytes));
  }
  return Add(std::move(own), bytes);
}

Status Regions::Release(void* base) {
  auto it = regions_.find(reinterpret_cast<uintptr_t>(base));
  if (it == regions_.end())
    return InvalidArgument("pointer is not the base of a region of this client");
  ipc::ReleaseRegion msg{};
  uint32_t rid = conn_->NextRequestId();
  ipc::InitMsgHeader(&msg.header, ipc::MsgType::kReleaseRegion, sizeof(msg) - sizeof(msg.header),
                     rid);
  msg.region_id = it->second.id;
  OUTRIDER_ASSIGN_OR_RETURN(ipc::RegionReply reply,
                            conn_->Request(&msg, sizeof(msg), nullptr, 0, rid));
  OUTRIDER_RETURN_IF_ERROR(FromReply(reply.code, reply.message).Annotate("releasing a region"));
  regions_.erase(it);
  return Status::Ok();
}

Status Regions::ReleaseDevice(const void* p, size_t bytes) {
  auto begin = reinterpret_cast<uintptr_t>(p);
  for (auto it = regions_.lower_bound(begin); it != regions_.end() && it->first - begin < bytes;) {
    if (!it->second.device) {
      ++it;
      continue;
    }
    uintptr_t base = it->first;
    ++it;  // Release erases the entry
    OUTRIDER_RETURN_IF_ERROR(Release(reinterpret_cast<void*>(base)));
  }
  return Status::Ok();
}

Status Regions::Free(void* p) {
  if (p == nullptr) return Status::Ok();
  if (!arena_->Free(p)) return InvalidArgument("pointer was not allocated with outrider_alloc");
  return Status::Ok();
}

Regions::Map::const_iterator Regions::RegionOf(const void* p) const {
  auto addr = reinterpret_cast<uintptr_t>(p);
  auto it = regions_.upper_bound(addr);
  if (it == regions_.begin()) return regions_.end();
  --it;
  return addr - it->first < it->second.bytes ? it : regions_.end();
}

bool Regions::InHostRegion(const void* p) const {
  auto it = RegionOf(p);
  return it != regions_.end() && !it->second.device;
}

Result<ipc::BufferRef> Regions::Resolve(const void* p, uint64_t bytes, const char* which) const {
  ipc::BufferRef ref{};
  if (bytes == 0) return ref;
  auto addr = reinterpret_cast<uintptr_t>(p);
  auto it = regions_.upper_bound(addr);
  if (p == nullptr || it == regions_.begin()) {
    return InvalidArgument(std::string(which) +
                           " buffer is not in memory shared with the agent; allocate it with "
                           "outrider_alloc or outrider_region_create");
  }
  --it;
  const Region& r = it->second;
  uint64_t off = addr - it->first;
  if (off >= r.bytes || bytes > r.bytes - off) {
    return InvalidArgument(std::string(which) + " buffer of " + std::to_string(bytes) +
                           " bytes does not fit inside its shared region (offset " +
                           std::to_string(off) + " of " + std::to_string(r.bytes) + " bytes)");
  }
  ref.region_id = r.id;
  ref.offset = off;
  ref.length = bytes;
  return ref;
}

void Regions::Leak() {
  (void)new Map(std::move(regions_));
  (void)arena_.release();
}

}  // namespace outrider::shim
