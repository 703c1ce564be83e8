// The data plane for host memory: memmove and the SIMD reduction kernels, run synchronously on the
// loop thread.
#pragma once

#include "agent/engine/dataplane/data_plane.h"

namespace outrider::agent {

// Thread-safety: loop thread only (it holds no state; calls finish before they return).
class HostDataPlane : public DataPlane {
 public:
  bool Reaches(const BufferSpan& span) const override { return span.host(); }
  void Copy(std::vector<CopyPair> pairs, Done done) override;
  void Reduce(std::vector<BufferSpan> dsts, std::vector<BufferSpan> srcs, ipc::DType dtype,
              ipc::ReduceOp op, Done done) override;
  void Divide(BufferSpan dst, ipc::DType dtype, int64_t divisor, Done done) override;
  bool Poll() override { return false; }
  using DataPlane::Copy;
};

}  // namespace outrider::agent
