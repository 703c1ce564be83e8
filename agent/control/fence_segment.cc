// Opening a client's earlier control segment for its fences (see fence_segment.h).
#include "agent/control/fence_segment.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace outrider::agent {

Result<FenceSegment> FenceSegment::Open(UniqueFd fd) {
  OUTRIDER_ASSIGN_OR_RETURN(size_t bytes, ipc::CheckSealedMemfd(fd.get()));
  if (bytes < sizeof(ipc::ControlHeader)) {
    return InvalidArgument("a control segment of " + std::to_string(bytes) +
                           " bytes is shorter than its header");
  }
  FenceSegment f;
  OUTRIDER_ASSIGN_OR_RETURN(f.mapping_, ipc::MapShared(fd.get(), bytes));
  uint64_t offset = 0;
  std::memcpy(&offset, f.mapping_.data() + offsetof(ipc::ControlHeader, fences_offset),
              sizeof(offset));
  constexpr uint64_t kSlotsBytes = uint64_t{ipc::kFenceSlots} * sizeof(ipc::FenceSlot);
  if (offset % alignof(ipc::FenceSlot) != 0 || offset < sizeof(ipc::ControlHeader) ||
      offset > bytes || bytes - offset < kSlotsBytes) {
    return InvalidArgument("its fences (offset " + std::to_string(offset) + ", " +
                           std::to_string(kSlotsBytes) + " bytes) are not inside its " +
                           std::to_string(bytes) + " bytes");
  }
  f.slots_ = reinterpret_cast<ipc::FenceSlot*>(f.mapping_.data() + offset);
  return f;
}

}  // namespace outrider::agent
