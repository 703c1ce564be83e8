// The NCCL collective's part in the node group (see nccl.h).
#include "agent/engine/gpu/nccl_collective.h"

#include "agent/engine/gpu/nccl_path.h"

namespace outrider::agent {

NcclCollective::~NcclCollective() {
  path_->Drop(
      c_.key, c_.seq,
      c_.done && !c_.result.ok() ? c_.result : Cancelled(c_.Name() + " ended before it ran"));
}

void NcclCollective::Prepare(std::function<void()> ready) {
  if (op().kind == ipc::OpKind::kAlltoallv)
    counts_ = std::make_unique<AlltoallvAgreement>(c_.ops, topo_);
  path_->Add(c_.key, c_.seq, c_.ops, c_.priority, [this](const Status& st) {
    if (!c_.done) Complete(st);
  });
  ready();
}

BufferSpan NcclCollective::Contribution(int) const {
  if (counts_ == nullptr) return {};
  return BufferSpan::Host(counts_->counts.data(), counts_->counts.size() * sizeof(AlltoallvCounts));
}

void NcclCollective::Agreed() {
  if (counts_ != nullptr) {
    // Every node checks the same tables: all fail alike, and node 0 never orders the launch.
    if (Status st = counts_->Check(c_.data, topo_); !st.ok()) return Complete(st);
  }
  path_->Agreed(c_.key, c_.seq);
}

}  // namespace outrider::agent
