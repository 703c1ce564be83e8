// The NCCL collective's part in the node group (see nccl.h).
#include "agent/engine/algorithms/nccl.h"

#include "agent/engine/nccl_path.h"

namespace outrider::agent {

NcclCollective::~NcclCollective() {
  path_->Drop(c_.key, c_.seq, c_.done && !c_.result.ok() ? c_.result : Cancelled(c_.Name() + " ended before it ran"));
}

void NcclCollective::Prepare(std::function<void()> ready) {
  path_->Add(c_.key, c_.seq, c_.ops, c_.priority, [this](const Status& st) {
    if (!c_.done) Complete(st);
  });
  ready();
}

void NcclCollective::Agreed() { path_->Agreed(c_.key, c_.seq); }

}  // namespace outrider::agent
