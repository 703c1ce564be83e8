// The fake NCCL's dtypes and reductions (fake_nccl_internal.h).
#include <cstring>

#include "tests/fakes/nccl/fake_nccl_internal.h"

namespace outrider::fake_nccl {
namespace {

float FromBf16(uint16_t v) {
  uint32_t b = uint32_t{v} << 16;
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
uint16_t ToBf16(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  b += 0x7fff + ((b >> 16) & 1);  // round to nearest even
  return static_cast<uint16_t>(b >> 16);
}

template <typename T>
T Apply(ncclRedOp_t op, T a, T b) {
  switch (op) {
    case ncclProd:
      return static_cast<T>(a * b);
    case ncclMax:
      return a > b ? a : b;
    case ncclMin:
      return a < b ? a : b;
    default:
      return static_cast<T>(a + b);
  }
}

// ReduceTyped over elements of type T.
template <typename T>
void ReduceTyped(const std::vector<const uint8_t*>& in, uint8_t* out, size_t n, ncclRedOp_t op) {
  for (size_t i = 0; i < n; ++i) {
    T acc;
    std::memcpy(&acc, in[0] + i * sizeof(T), sizeof(T));
    for (size_t r = 1; r < in.size(); ++r) {
      T v;
      std::memcpy(&v, in[r] + i * sizeof(T), sizeof(T));
      acc = Apply(op, acc, v);
    }
    if (op == ncclAvg) acc = static_cast<T>(acc / static_cast<T>(in.size()));
    std::memcpy(out + i * sizeof(T), &acc, sizeof(T));
  }
}

}  // namespace

size_t Size(ncclDataType_t t) {
  switch (t) {
    case ncclInt8:
    case ncclUint8:
      return 1;
    case ncclFloat16:
    case ncclBfloat16:
      return 2;
    case ncclInt32:
    case ncclUint32:
    case ncclFloat32:
      return 4;
    case ncclInt64:
    case ncclUint64:
    case ncclFloat64:
      return 8;
    default:
      return 0;
  }
}

bool Reduce(const std::vector<const uint8_t*>& in, uint8_t* out, size_t n, ncclDataType_t t,
            ncclRedOp_t op) {
  switch (t) {
    case ncclInt8:
      ReduceTyped<int8_t>(in, out, n, op);
      return true;
    case ncclUint8:
      ReduceTyped<uint8_t>(in, out, n, op);
      return true;
    case ncclInt32:
      ReduceTyped<int32_t>(in, out, n, op);
      return true;
    case ncclUint32:
      ReduceTyped<uint32_t>(in, out, n, op);
      return true;
    case ncclInt64:
      ReduceTyped<int64_t>(in, out, n, op);
      return true;
    case ncclUint64:
      ReduceTyped<uint64_t>(in, out, n, op);
      return true;
    case ncclFloat32:
      ReduceTyped<float>(in, out, n, op);
      return true;
    case ncclFloat64:
      ReduceTyped<double>(in, out, n, op);
      return true;
    case ncclBfloat16: {
      std::vector<float> acc(n);
      std::vector<uint8_t> wide(n * 4);
      std::vector<std::vector<uint8_t>> widened(in.size(), std::vector<uint8_t>(n * 4));
      std::vector<const uint8_t*> w;
      for (size_t r = 0; r < in.size(); ++r) {
        for (size_t i = 0; i < n; ++i) {
          uint16_t v;
          std::memcpy(&v, in[r] + 2 * i, 2);
          float f = FromBf16(v);
          std::memcpy(widened[r].data() + 4 * i, &f, 4);
        }
        w.push_back(widened[r].data());
      }
      ReduceTyped<float>(w, wide.data(), n, op);
      for (size_t i = 0; i < n; ++i) {
        float f;
        std::memcpy(&f, wide.data() + 4 * i, 4);
        uint16_t v = ToBf16(f);
        std::memcpy(out + 2 * i, &v, 2);
      }
      return true;
    }
    default:
      return false;  // float16 and the 8-bit floats: not in the fake
  }
}

}  // namespace outrider::fake_nccl
