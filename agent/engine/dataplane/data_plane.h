// Data movement over spans: copies, element-wise reductions and the final division of an average.
// Algorithms decide what moves where and when; a data plane is the only thing that touches the
// bytes. The host plane (host_data_plane.h) runs memmove and the reduction kernels. Ops on GPU
// memory never reach a data plane with device spans: the GPU path (engine/gpu/) either stages them
// into host memory first or hands them to NCCL whole.
#pragma once

#include <functional>
#include <span>
#include <vector>

#include "agent/memory/buffer_span.h"
#include "base/status.h"
#include "ipc/protocol.h"

namespace outrider::agent {

struct CopyPair {
  BufferSpan dst, src;  // equal lengths
};

// Thread-safety: loop thread only.
class DataPlane {
 public:
  // Runs once the call's destinations hold their bytes, or with why they never will.
  using Done = std::function<void(const Status&)>;

  virtual ~DataPlane() = default;
  // Whether this plane can read and write `span`'s memory.
  virtual bool Reaches(const BufferSpan& span) const = 0;
  // Copies every pair (in any order; a pair whose dst and src are the same memory is skipped).
  // Destinations must not overlap each other or any source of another pair.
  virtual void Copy(std::vector<CopyPair> pairs, Done done) = 0;
  // Every destination = srcs[0] op srcs[1] op ... element by element, a left fold in this order
  // (so results are bitwise reproducible). A destination may be exactly one of the sources.
  virtual void Reduce(std::vector<BufferSpan> dsts, std::vector<BufferSpan> srcs, ipc::DType dtype,
                      ipc::ReduceOp op, Done done) = 0;
  // dst /= divisor element by element (an average's last step).
  virtual void Divide(BufferSpan dst, ipc::DType dtype, int64_t divisor, Done done) = 0;
  // Runs `done` of finished calls. A synchronous plane (the host one) finishes each call inside
  // it and runs its `done` before returning, so its Poll() never has work; callers must be
  // correct either way. True if anything ran.
  virtual bool Poll() = 0;

  void Copy(const BufferSpan& dst, const BufferSpan& src, Done done) {
    Copy({{dst, src}}, std::move(done));
  }
};

}  // namespace outrider::agent
