// Checks and conversions of a collective's arguments that the backend's op files share
// (process_group_*.cc).
#pragma once

#include <ATen/ATen.h>

#include <optional>
#include <string>
#include <torch/csrc/distributed/c10d/Types.hpp>
#include <vector>

#include "outrider/outrider.h"

namespace outrider::torch_backend {

// Throws std::runtime_error("outrider: " + what): a bad argument.
[[noreturn]] void Throw(const std::string& what);
// The outrider dtype of `t`'s elements; throws for one the agent does not reduce.
outrider_dtype_t DType(const at::Tensor& t);
// The outrider reduction of `op`; throws for one the agent does not have.
outrider_redop_t RedOp(const c10d::ReduceOp& op);
// Throws unless `t` is a dense tensor on the CPU or a CUDA device; `what` names the op.
void CheckDense(const at::Tensor& t, const char* what);
// The CUDA device of an op's tensors, or none when they are on the CPU. All must be on one.
std::optional<c10::Device> CudaDevice(const std::vector<at::Tensor>& ts, const char* what);
// Throws unless `tensors` holds exactly one tensor (one per process, as c10d passes them).
void CheckOne(const std::vector<at::Tensor>& tensors, const char* what);

}  // namespace outrider::torch_backend
