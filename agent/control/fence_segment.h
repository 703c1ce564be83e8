// The fence slots of an earlier agent's control segment, which a client brings after a hand-over
// (ipc::kHelloFences; docs/design.md#gpu-path).
#pragma once

#include "base/status.h"
#include "ipc/memfd.h"
#include "ipc/protocol.h"
#include "ipc/unique_fd.h"

namespace outrider::agent {

// The fence slots of an earlier agent's control segment, where a client's streams wait after
// that agent handed the client over (ipc::kHelloFences): the sealed memfd, mapped, with the fence
// offset of its header checked against its size once (the client may rewrite the header later;
// it reaches only its own fences).
// Thread-safety: loop thread only.
class FenceSegment {
 public:
  static Result<FenceSegment> Open(UniqueFd fd);
  ipc::FenceSlot* slots() const { return slots_; }

 private:
  ipc::Mapping mapping_;
  ipc::FenceSlot* slots_ = nullptr;
};

}  // namespace outrider::agent
