// Host data movement: the bytes are touched here and in the reduction kernels, nowhere else.
#include "agent/engine/dataplane/host_data_plane.h"

#include <cstring>

#include "agent/engine/dataplane/host_memory.h"
#include "agent/engine/dataplane/reduce.h"

namespace outrider::agent {
namespace {

// The kernels read and write whole scalars (KernelAlignment: at most 8 bytes). A span off that
// alignment (a transport's receive buffer, or a client buffer at an odd offset) goes through an
// aligned copy instead.
bool Aligned(const BufferSpan& s, uint64_t align) { return s.address % align == 0; }

// Aligned copies of the misaligned spans among `spans` (the spans are re-pointed at them).
std::vector<std::vector<uint64_t>> StageMisaligned(std::vector<BufferSpan>* spans, uint64_t align) {
  std::vector<std::vector<uint64_t>> staged;
  for (BufferSpan& s : *spans) {
    if (Aligned(s, align)) continue;
    staged.emplace_back((s.length + 7) / 8);
    std::memcpy(staged.back().data(), HostBytes(s), s.length);
    s = BufferSpan::Host(staged.back().data(), s.length);
  }
  return staged;
}

}  // namespace

void HostDataPlane::Copy(std::vector<CopyPair> pairs, Done done) {
  for (const CopyPair& p : pairs) {
    OUTRIDER_CHECK(p.dst.length == p.src.length);
    if (p.dst.length == 0 || p.dst.SameStart(p.src)) continue;
    std::memmove(HostBytes(p.dst), HostBytes(p.src), p.dst.length);
  }
  if (done) done(Status::Ok());
}

void HostDataPlane::Reduce(std::vector<BufferSpan> dsts, std::vector<BufferSpan> srcs,
                           ipc::DType dtype, ipc::ReduceOp op, Done done) {
  OUTRIDER_CHECK(!srcs.empty());
  uint64_t bytes = srcs[0].length, elem = ipc::DTypeSize(dtype);
  if (bytes == 0) {  // nothing to reduce: empty spans may sit anywhere, off their alignment too
    for (const BufferSpan& s : srcs) OUTRIDER_CHECK(s.empty());
    for (const BufferSpan& d : dsts) OUTRIDER_CHECK(d.empty());
    if (done) done(Status::Ok());
    return;
  }
  const uint64_t align = KernelAlignment(dtype);
  bool misaligned = false;
  for (const BufferSpan& s : srcs) misaligned |= !Aligned(s, align);
  for (const BufferSpan& d : dsts) misaligned |= !Aligned(d, align);
  if (misaligned) {
    // Rare: reduce aligned copies into an aligned result, then copy it to every destination.
    std::vector<std::vector<uint64_t>> staged = StageMisaligned(&srcs, align);
    std::vector<uint64_t> result((bytes + 7) / 8);
    BufferSpan out = BufferSpan::Host(result.data(), bytes);
    Reduce({out}, std::move(srcs), dtype, op, nullptr);
    std::vector<CopyPair> pairs;
    for (const BufferSpan& d : dsts) pairs.push_back({d, out});
    return Copy(std::move(pairs), std::move(done));
  }
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
    ReduceInto(dtype, op, in, static_cast<int>(srcs.size()), out, static_cast<int>(dsts.size()),
               bytes / elem);
  }
  if (done) done(Status::Ok());
}

void HostDataPlane::Divide(BufferSpan dst, ipc::DType dtype, int64_t divisor, Done done) {
  uint64_t elem = ipc::DTypeSize(dtype);
  if (!dst.empty() && !Aligned(dst, KernelAlignment(dtype))) {
    std::vector<uint64_t> aligned((dst.length + 7) / 8);
    std::memcpy(aligned.data(), HostBytes(dst), dst.length);
    DivideInPlace(dtype, aligned.data(), dst.length / elem, divisor);
    return Copy(dst, BufferSpan::Host(aligned.data(), dst.length), std::move(done));
  }
  DivideInPlace(dtype, HostBytes(dst), dst.length / elem, divisor);
  if (done) done(Status::Ok());
}

}  // namespace outrider::agent
