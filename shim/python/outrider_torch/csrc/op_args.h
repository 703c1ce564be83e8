// Checks and conversions of a collective's arguments that the backend's op files share
// (process_group.cc, process_group_sparse.cc).
#pragma once

#include <ATen/ATen.h>

#include <string>

#include "outrider/outrider.h"

namespace outrider::torch_backend {

// Throws std::runtime_error("outrider: " + what): a bad argument.
[[noreturn]] void Throw(const std::string& what);
// The outrider dtype of `t`'s elements; throws for one the agent does not reduce.
outrider_dtype_t DType(const at::Tensor& t);

}  // namespace outrider::torch_backend
