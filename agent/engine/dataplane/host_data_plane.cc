// Host data movement: the bytes are touched here and in the reduction kernels, nowhere else.
#include "agent/engine/dataplane/host_data_plane.h"

#include <cstring>

#include "agent/engine/dataplane/host_memory.h"
#include "agent/engine/dataplane/reduce.h"

namespace outrider::agent {

void HostDataPlane::Copy(std::vector<CopyPair> pairs, Done done) {
  for (const CopyPair& p : pairs) {
    OUTRIDER_CHECK(p.dst.length == p.src.length);
    if (p.dst.length == 0 || p.dst.SameStart(p.src)) continue;
    std::memmove(HostBytes(p.dst), HostBytes(p.src), p.dst.length);
  }
  if (done) done(Status::Ok());
}

void HostDataPlane::Reduce(std::vector<BufferSpan> dsts, std::vector<BufferSpan> srcs, ipc::DType dtype,
                           ipc::ReduceOp op, Done done) {
  OUTRIDER_CHECK(!srcs.empty());
  uint64_t bytes = srcs[0].length, elem = ipc::DTypeSize(dtype);
  // Fixed-size arrays for the common case: this runs once per ring chunk.
  constexpr size_t kInline = 16;
  const void* in_inline[kInline];
  void* out_inline[kInline];
  std::vector<const void*> in_heap;
  std::vector<void*> out_heap;
  const void** in = in_inline;
  void** out = out_inline;
  if (srcs.size() > kInline) in = (in_heap.resize(srcs.size()), in_heap.data());
  if (dsts.size() > kInline) out = (out_heap.resize(dsts.size()), out_heap.data());
  for (size_t i = 0; i < srcs.size(); ++i) {
    OUTRIDER_CHECK(srcs[i].length == bytes);
    in[i] = HostBytes(srcs[i]);
  }
  for (size_t i = 0; i < dsts.size(); ++i) {
    OUTRIDER_CHECK(dsts[i].length == bytes);
    out[i] = HostBytes(dsts[i]);
  }
  if (bytes > 0) {
    engine::ReduceInto(dtype, op, in, static_cast<int>(srcs.size()), out, static_cast<int>(dsts.size()),
                       bytes / elem);
  }
  if (done) done(Status::Ok());
}

void HostDataPlane::Divide(BufferSpan dst, ipc::DType dtype, int64_t divisor, Done done) {
  engine::DivideInPlace(dtype, HostBytes(dst), dst.length / ipc::DTypeSize(dtype), divisor);
  if (done) done(Status::Ok());
}

HostDataPlane& SharedHostDataPlane() {
  static HostDataPlane plane;
  return plane;
}

}  // namespace outrider::agent
