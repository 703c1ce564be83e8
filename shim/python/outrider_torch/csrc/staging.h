// CPU tensors staged through memory shared with the agent, for the backend's op files: copies
// between tensors and shared memory (counted in Copies(), shared_memory.h), and Stage, which hands
// the agent a tensor's own memory where it already lies in shared memory.
#pragma once

#include <ATen/ATen.h>

#include <functional>
#include <vector>

#include "outrider/outrider.h"
#include "shim/python/outrider_torch/csrc/connection.h"

namespace outrider::torch_backend {

// Copies `t` into shared memory at `p` (contiguous).
void CopyIn(const at::Tensor& t, void* p);
// Copies the contiguous result at shared memory `p` into `t`.
void CopyBack(const void* p, at::Tensor& t);
// Copies `ts` one after another into shared memory at `p` (each contiguous).
void PackIn(const std::vector<at::Tensor>& ts, void* p);
// The inverse of PackIn: fills `ts` from consecutive blocks of shared memory at `p`.
void UnpackOut(const void* p, std::vector<at::Tensor>& ts);
// A completion that copies the result at `p` (shared memory, contiguous) back into `t`.
std::function<void(const outrider_op_result_t&)> CopyOut(void* p, at::Tensor t);

// Where an op on `t` reads and writes its data.
struct Staged {
  void* ptr;
  bool in_place;  // `t`'s own memory
};

// `t` itself when it lies in the connection's shared memory: the agent works on it in place.
// Otherwise a staging buffer (released with the request) holding a copy of `t`; then
// `*copy_back`, if given, becomes a completion copying the result back into `t`.
Staged Stage(Connection& conn, Request& r, const at::Tensor& t,
             std::function<void(const outrider_op_result_t&)>* copy_back);

}  // namespace outrider::torch_backend
