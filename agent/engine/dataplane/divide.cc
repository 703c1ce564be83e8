// The last step of an average: each element divided by the number of contributions (see
// reduce.h).
#include <cstddef>
#include <cstdint>

#include "agent/engine/dataplane/reduce.h"
#include "base/check.h"

namespace outrider::agent {
namespace {

using ipc::DType;

// Narrow integers divide in 64 bits, truncating toward zero.
template <typename T>
void DivideTruncating(T* p, size_t count, int64_t n) {
  for (size_t i = 0; i < count; ++i) p[i] = static_cast<T>(int64_t{p[i]} / n);
}

}  // namespace

void DivideInPlace(DType t, void* data, size_t count, int64_t n) {
  switch (t) {
    case DType::kF32:
      for (size_t i = 0; i < count; ++i) static_cast<float*>(data)[i] /= static_cast<float>(n);
      break;
    case DType::kF64:
      for (size_t i = 0; i < count; ++i) static_cast<double*>(data)[i] /= static_cast<double>(n);
      break;
    case DType::kI32:
      for (size_t i = 0; i < count; ++i) static_cast<int32_t*>(data)[i] /= static_cast<int32_t>(n);
      break;
    case DType::kI64:
      for (size_t i = 0; i < count; ++i) static_cast<int64_t*>(data)[i] /= n;
      break;
    case DType::kF16:
      for (size_t i = 0; i < count; ++i) {
        uint16_t* h = static_cast<uint16_t*>(data) + i;
        *h = FloatToHalf(HalfToFloat(*h) / static_cast<float>(n));
      }
      break;
    case DType::kBF16:
      for (size_t i = 0; i < count; ++i) {
        uint16_t* h = static_cast<uint16_t*>(data) + i;
        *h = FloatToBFloat16(BFloat16ToFloat(*h) / static_cast<float>(n));
      }
      break;
    case DType::kU8:
      DivideTruncating(static_cast<uint8_t*>(data), count, n);
      break;
    case DType::kI8:
      DivideTruncating(static_cast<int8_t*>(data), count, n);
      break;
    case DType::kI16:
      DivideTruncating(static_cast<int16_t*>(data), count, n);
      break;
    case DType::kC64:
      return DivideInPlace(DType::kF32, data, 2 * count, n);
    case DType::kC128:
      return DivideInPlace(DType::kF64, data, 2 * count, n);
    case DType::kBool:
      OUTRIDER_CHECK(false && "bool has no average: refused by IsSupported");
  }
}

}  // namespace outrider::agent
