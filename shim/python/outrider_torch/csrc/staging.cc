// CPU tensors staged through memory shared with the agent (see staging.h).
#include "shim/python/outrider_torch/csrc/staging.h"

#include <cstdint>

#include "shim/python/outrider_torch/csrc/shared_memory.h"

namespace outrider::torch_backend {
namespace {

// A view of shared memory shaped like `like` (contiguous).
at::Tensor View(void* p, const at::Tensor& like) {
  return at::from_blob(p, like.sizes(), like.options().layout(at::kStrided));
}

}  // namespace

void CopyIn(const at::Tensor& t, void* p) {
  Copies().tensors_staged++;
  Copies().bytes_in += t.nbytes();
  if (t.numel() > 0) View(p, t).copy_(t);
}

void CopyBack(const void* p, at::Tensor& t) {
  Copies().bytes_out += t.nbytes();
  if (t.numel() > 0) t.copy_(View(const_cast<void*>(p), t));
}

void PackIn(const std::vector<at::Tensor>& ts, void* p) {
  size_t off = 0;
  for (const at::Tensor& t : ts) {
    CopyIn(t, static_cast<uint8_t*>(p) + off);
    off += t.nbytes();
  }
}

void UnpackOut(const void* p, std::vector<at::Tensor>& ts) {
  size_t at = 0;
  for (at::Tensor& t : ts) {
    CopyBack(static_cast<const uint8_t*>(p) + at, t);
    at += t.nbytes();
  }
}

std::function<void(const outrider_op_result_t&)> CopyOut(void* p, at::Tensor t) {
  return [p, t](const outrider_op_result_t&) mutable { CopyBack(p, t); };
}

Staged Stage(Connection& conn, Request& r, const at::Tensor& t,
             std::function<void(const outrider_op_result_t&)>* copy_back) {
  if (void* p = SharedData(conn, t)) {
    Copies().tensors_in_place++;
    r.in_place.push_back(t.data_ptr());
    return {p, true};
  }
  Buffer b = conn.Acquire(t.nbytes());
  r.buffers.push_back(b);
  CopyIn(t, b.ptr);
  if (copy_back != nullptr) *copy_back = CopyOut(b.ptr, t);
  return {b.ptr, false};
}

}  // namespace outrider::torch_backend
