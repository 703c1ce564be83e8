// Checks and conversions of a collective's arguments that the backend's op files share (see
// op_args.h).
#include "shim/python/outrider_torch/csrc/op_args.h"

#include <stdexcept>

namespace outrider::torch_backend {

[[noreturn]] void Throw(const std::string& what) { throw std::runtime_error("outrider: " + what); }

outrider_dtype_t DType(const at::Tensor& t) {
  switch (t.scalar_type()) {
    case at::kFloat:
      return OUTRIDER_F32;
    case at::kDouble:
      return OUTRIDER_F64;
    case at::kHalf:
      return OUTRIDER_F16;
    case at::kBFloat16:
      return OUTRIDER_BF16;
    case at::kInt:
      return OUTRIDER_I32;
    case at::kLong:
      return OUTRIDER_I64;
    case at::kByte:
      return OUTRIDER_U8;
    case at::kChar:
      return OUTRIDER_I8;
    case at::kShort:
      return OUTRIDER_I16;
    case at::kBool:
      return OUTRIDER_BOOL;
    case at::kComplexFloat:
      return OUTRIDER_C64;
    case at::kComplexDouble:
      return OUTRIDER_C128;
    default:
      Throw(std::string("tensors of dtype ") + c10::toString(t.scalar_type()) +
            " are not supported (float32, float64, float16, bfloat16, int8/16/32/64, uint8, bool, "
            "complex64 and complex128 are)");
  }
}

outrider_redop_t RedOp(const c10d::ReduceOp& op) {
  switch (static_cast<c10d::ReduceOp::RedOpType>(op)) {
    case c10d::ReduceOp::SUM:
      return OUTRIDER_SUM;
    case c10d::ReduceOp::AVG:
      return OUTRIDER_AVG;
    case c10d::ReduceOp::PRODUCT:
      return OUTRIDER_PROD;
    case c10d::ReduceOp::MIN:
      return OUTRIDER_MIN;
    case c10d::ReduceOp::MAX:
      return OUTRIDER_MAX;
    default:
      Throw("reduce op " +
            std::to_string(static_cast<int>(static_cast<c10d::ReduceOp::RedOpType>(op))) +
            " is not supported (SUM, AVG, PRODUCT, MIN, MAX are)");
  }
}

void CheckDense(const at::Tensor& t, const char* what) {
  if (t.is_sparse()) Throw(std::string(what) + ": sparse tensors are supported by allreduce only");
  if (!t.device().is_cpu() && !t.device().is_cuda()) {
    Throw(std::string(what) + ": tensors must be on the CPU or a CUDA device, not " +
          t.device().str());
  }
}

std::optional<c10::Device> CudaDevice(const std::vector<at::Tensor>& ts, const char* what) {
  std::optional<c10::Device> dev;
  for (const at::Tensor& t : ts) {
    if (!dev) {
      dev = t.device();
    } else if (t.device() != *dev) {
      Throw(std::string(what) + ": tensors must all be on the CPU or all on one CUDA device (got " +
            dev->str() + " and " + t.device().str() + ")");
    }
  }
  if (dev && dev->is_cuda()) return dev;
  return std::nullopt;
}

void CheckOne(const std::vector<at::Tensor>& tensors, const char* what) {
  if (tensors.size() != 1)
    Throw(std::string(what) + " takes one tensor per process, got " +
          std::to_string(tensors.size()));
}

}  // namespace outrider::torch_backend
