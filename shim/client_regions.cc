// The client's memory regions: host regions (memfds mapped by both sides), the arena's
// allocations inside them, GPU allocations registered with the agent (gpu_mode ipc), and how an
// op's buffer pointer becomes a (region, offset, length) reference.
#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "shim/client.h"

namespace outrider::shim {

Result<ipc::RegionReply> Client::RegionRequest(const void* msg, size_t bytes, const int* fds, size_t nfds,
                                               uint32_t request_id) {
  OUTRIDER_RETURN_IF_ERROR(AgentGone());
  OUTRIDER_RETURN_IF_ERROR(channel_.Send(msg, bytes, fds, nfds));
  uint64_t deadline = ipc::MonotonicNs() + uint64_t(config_.timeout_ms) * 1000000;
  for (;;) {
    uint64_t now = ipc::MonotonicNs();
    if (now >= deadline) return DeadlineExceeded("the agent did not answer a region request in time");
    alignas(8) uint8_t buf[ipc::kMaxMessageBytes];
    auto n = channel_.Recv(buf, sizeof(buf), nullptr, static_cast<int>((deadline - now) / 1000000 + 1));
    if (!n.ok() && n.status().code() == Code::kDeadlineExceeded) continue;
    if (std::optional<Status> gone = Departure(n, buf)) {
      MarkGone(*gone);
      return gone_;
    }
    ipc::MsgHeader hdr;
    std::memcpy(&hdr, buf, std::min(*n, sizeof(hdr)));
    if (*n != sizeof(ipc::RegionReply) || hdr.magic != ipc::kMagic || hdr.request_id != request_id) {
      return ProtocolError("unexpected reply to a region request");
    }
    ipc::RegionReply reply;
    std::memcpy(&reply, buf, sizeof(reply));
    return reply;
  }
}

Result<void*> Client::AddRegion(UniqueFd fd, size_t bytes) {
  OUTRIDER_ASSIGN_OR_RETURN(ipc::Mapping mapping, ipc::MapShared(fd.get(), bytes));
  ipc::RegisterRegion msg{};
  uint32_t rid = next_request_id_++;
  ipc::InitMsgHeader(&msg.header, ipc::MsgType::kRegisterRegion, sizeof(msg) - sizeof(msg.header), rid);
  msg.bytes = bytes;
  int f = fd.get();
  OUTRIDER_ASSIGN_OR_RETURN(ipc::RegionReply reply, RegionRequest(&msg, sizeof(msg), &f, 1, rid));
  OUTRIDER_RETURN_IF_ERROR(FromReply(reply.code, reply.message).Annotate("registering a region"));
  uint8_t* base = mapping.data();
  regions_.emplace(reinterpret_cast<uintptr_t>(base),
                   Region{reply.region_id, bytes, std::move(mapping), std::move(fd)});
  return static_cast<void*>(base);
}

Result<void*> Client::CreateRegion(size_t bytes) {
  if (bytes == 0) return InvalidArgument("region size must be > 0");
  size_t rounded = (bytes + 4095) & ~size_t{4095};
  OUTRIDER_ASSIGN_OR_RETURN(UniqueFd fd, ipc::CreateSealedMemfd("outrider-region", rounded));
  return AddRegion(std::move(fd), rounded);
}

Result<void*> Client::RegisterFd(int fd, size_t bytes) {
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
    return InvalidArgument("memfd is " + std::to_string(size) + " bytes, not " + std::to_string(bytes));
  }
  return AddRegion(std::move(own), bytes);
}

Status Client::ReleaseRegion(void* base) {
  auto it = regions_.find(reinterpret_cast<uintptr_t>(base));
  if (it == regions_.end()) return InvalidArgument("pointer is not the base of a region of this client");
  ipc::ReleaseRegion msg{};
  uint32_t rid = next_request_id_++;
  ipc::InitMsgHeader(&msg.header, ipc::MsgType::kReleaseRegion, sizeof(msg) - sizeof(msg.header), rid);
  msg.region_id = it->second.id;
  OUTRIDER_ASSIGN_OR_RETURN(ipc::RegionReply reply, RegionRequest(&msg, sizeof(msg), nullptr, 0, rid));
  OUTRIDER_RETURN_IF_ERROR(FromReply(reply.code, reply.message).Annotate("releasing a region"));
  regions_.erase(it);
  return Status::Ok();
}

Status Client::ReleaseDeviceMemory(const void* p, size_t bytes) {
  auto begin = reinterpret_cast<uintptr_t>(p);
  for (auto it = regions_.lower_bound(begin); it != regions_.end() && it->first - begin < bytes;) {
    if (!it->second.device) {
      ++it;
      continue;
    }
    uintptr_t base = it->first;
    ++it;  // ReleaseRegion erases the entry
    OUTRIDER_RETURN_IF_ERROR(ReleaseRegion(reinterpret_cast<void*>(base)));
  }
  return Status::Ok();
}

Result<void*> Client::Alloc(size_t bytes) { return arena_->Allocate(bytes); }

Status Client::Free(void* p) {
  if (p == nullptr) return Status::Ok();
  if (!arena_->Free(p)) return InvalidArgument("pointer was not allocated with outrider_alloc");
  return Status::Ok();
}

std::map<uintptr_t, Client::Region>::const_iterator Client::RegionOf(const void* p) const {
  auto addr = reinterpret_cast<uintptr_t>(p);
  auto it = regions_.upper_bound(addr);
  if (it == regions_.begin()) return regions_.end();
  --it;
  return addr - it->first < it->second.bytes ? it : regions_.end();
}

bool Client::InHostRegion(const void* p) const {
  auto it = RegionOf(p);
  return it != regions_.end() && !it->second.device;
}

Result<ipc::BufferRef> Client::Resolve(const void* p, uint64_t bytes, const char* which) const {
  ipc::BufferRef ref{};
  if (bytes == 0) return ref;
  auto addr = reinterpret_cast<uintptr_t>(p);
  auto it = regions_.upper_bound(addr);
  if (p == nullptr || it == regions_.begin()) {
    return InvalidArgument(std::string(which) + " buffer is not in memory shared with the agent; allocate it with outrider_alloc or outrider_region_create");
  }
  --it;
  const Region& r = it->second;
  uint64_t off = addr - it->first;
  if (off >= r.bytes || bytes > r.bytes - off) {
    return InvalidArgument(std::string(which) + " buffer of " + std::to_string(bytes) +
                           " bytes does not fit inside its shared region (offset " + std::to_string(off) +
                           " of " + std::to_string(r.bytes) + " bytes)");
  }
  ref.region_id = r.id;
  ref.offset = off;
  ref.length = bytes;
  return ref;
}

}  // namespace outrider::shim
