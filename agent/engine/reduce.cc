// Reduction kernels: one template per (dtype, op), blocked so that all inputs of a block are read
// into an L1-resident accumulator before any output is written (outputs may alias inputs). The
// inner loops are plain element-wise loops that GCC auto-vectorizes; an AVX2 clone is picked at
// load time and produces bitwise the same results as the baseline SSE2 clone.
#include "agent/engine/reduce.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <type_traits>

#include "agent/engine/half.h"
#include "ipc/check.h"

// The NaN handling below relies on x != x; -ffast-math would silently break it.
#if defined(__FAST_MATH__) || defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__
#error "reduce.cc must not be compiled with -ffast-math or -ffinite-math-only"
#endif

namespace outrider::engine {
namespace {

using ipc::DType;
using ipc::ReduceOp;

// 2048 elements: the f64 accumulator (16 KiB) plus the f16 staging block stay within L1.
constexpr size_t kBlockElems = 2048;

#define OUTRIDER_INLINE inline __attribute__((always_inline))
// Baseline x86-64 has only SSE2; AVX2 doubles the vector width on machines that have it.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define OUTRIDER_MULTIVERSION __attribute__((target_clones("avx2", "default")))
#else
#define OUTRIDER_MULTIVERSION
#endif

// How a dtype is stored and accumulated. Integers accumulate in their own signed type; the ops
// route sum/prod through the unsigned type so that wraparound is defined.
struct F32 {
  using Storage = float;
  using Acc = float;
  static Acc Load(Storage v) { return v; }
  static Storage Store(Acc a) { return a; }
};
struct F64 {
  using Storage = double;
  using Acc = double;
  static Acc Load(Storage v) { return v; }
  static Storage Store(Acc a) { return a; }
};
struct F16 {
  using Storage = uint16_t;
  using Acc = float;
  static OUTRIDER_INLINE Acc Load(Storage v) { return half::HalfBitsToFloat(v); }
  static OUTRIDER_INLINE Storage Store(Acc a) { return half::FloatToHalfBits(a); }
};
struct BF16 {
  using Storage = uint16_t;
  using Acc = float;
  static OUTRIDER_INLINE Acc Load(Storage v) { return half::BFloat16BitsToFloat(v); }
  static OUTRIDER_INLINE Storage Store(Acc a) { return half::FloatToBFloat16Bits(a); }
};
struct I32 {
  using Storage = int32_t;
  using Acc = int32_t;
  static Acc Load(Storage v) { return v; }
  static Storage Store(Acc a) { return a; }
};
struct I64 {
  using Storage = int64_t;
  using Acc = int64_t;
  static Acc Load(Storage v) { return v; }
  static Storage Store(Acc a) { return a; }
};

struct Sum {
  template <typename A>
  static OUTRIDER_INLINE A Apply(A acc, A x) {
    if constexpr (std::is_integral_v<A>) {
      using U = std::make_unsigned_t<A>;
      return static_cast<A>(static_cast<U>(acc) + static_cast<U>(x));
    } else {
      return acc + x;
    }
  }
};
struct Avg : Sum {};  // Finish() divides.
struct Prod {
  template <typename A>
  static OUTRIDER_INLINE A Apply(A acc, A x) {
    if constexpr (std::is_integral_v<A>) {
      using U = std::make_unsigned_t<A>;
      return static_cast<A>(static_cast<U>(acc) * static_cast<U>(x));
    } else {
      return acc * x;
    }
  }
};
// Min/Max take x when it is NaN, and never replace a NaN accumulator (comparisons with NaN are
// false), so a NaN anywhere in the fold survives. Written as selects so they vectorize.
struct Min {
  template <typename A>
  static OUTRIDER_INLINE A Apply(A acc, A x) {
    return (x < acc || x != x) ? x : acc;
  }
};
struct Max {
  template <typename A>
  static OUTRIDER_INLINE A Apply(A acc, A x) {
    return (x > acc || x != x) ? x : acc;
  }
};

// Sets the quiet bit of every NaN: min/max and single-input folds can pass a signaling NaN
// through untouched, while arithmetic on x86 already returns quiet NaNs.
template <typename A>
OUTRIDER_INLINE void QuietNaNs(A* acc, size_t n) {
  using Bits = std::conditional_t<sizeof(A) == 4, uint32_t, uint64_t>;
  constexpr Bits kQuiet = Bits{1} << (std::numeric_limits<A>::digits - 2);
  for (size_t j = 0; j < n; ++j) {
    // A select in the float domain: SSE2 has no 64-bit integer compare, so an integer mask would
    // keep the f64 loop scalar.
    const A quiet = std::bit_cast<A>(std::bit_cast<Bits>(acc[j]) | kQuiet);
    acc[j] = acc[j] != acc[j] ? quiet : acc[j];
  }
}

template <typename D, typename Op>
OUTRIDER_INLINE void Finish(typename D::Acc* acc, size_t n, int num_inputs) {
  using A = typename D::Acc;
  if constexpr (std::is_same_v<Op, Avg>) {
    if constexpr (std::is_floating_point_v<A>) {
      const A divisor = static_cast<A>(num_inputs);
      for (size_t j = 0; j < n; ++j) acc[j] /= divisor;
    } else if constexpr (sizeof(A) == 4) {
      // Exact: |sum| < 2^31 and the double quotient can never round across an integer, so the
      // truncating conversion equals integer division; unlike idiv it vectorizes.
      const double divisor = num_inputs;
      for (size_t j = 0; j < n; ++j) {
        acc[j] = static_cast<A>(static_cast<double>(acc[j]) / divisor);
      }
    } else {
      const A divisor = num_inputs;
      for (size_t j = 0; j < n; ++j) acc[j] /= divisor;
    }
  }
  // Only f32/f64 need this: f16/bf16 conversions already quiet NaNs on load and store.
  if constexpr (std::is_same_v<typename D::Storage, A> && std::is_floating_point_v<A>) {
    constexpr bool kMinMax = std::is_same_v<Op, Min> || std::is_same_v<Op, Max>;
    if (kMinMax || num_inputs == 1) QuietNaNs(acc, n);
  }
}

template <typename D, typename Op>
OUTRIDER_MULTIVERSION void ReduceTyped(const void* const* inputs, int num_inputs,
                                       void* const* outputs, int num_outputs, size_t count) {
  using S = typename D::Storage;
  using A = typename D::Acc;
  alignas(64) A acc[kBlockElems];
  alignas(64) S staged[std::is_same_v<S, A> ? 1 : kBlockElems];  // Store()d results for f16/bf16
  for (size_t base = 0; base < count; base += kBlockElems) {
    const size_t n = std::min(kBlockElems, count - base);
    const S* in0 = static_cast<const S*>(inputs[0]) + base;
    int next = 1;
    if (num_inputs >= 2) {
      // Fusing the first two inputs saves a pass over the accumulator; for f32/f64 sum of two
      // inputs (the common 2-GPU case) this is the whole reduction.
      const S* in1 = static_cast<const S*>(inputs[1]) + base;
      for (size_t j = 0; j < n; ++j) acc[j] = Op::Apply(D::Load(in0[j]), D::Load(in1[j]));
      next = 2;
    } else {
      for (size_t j = 0; j < n; ++j) acc[j] = D::Load(in0[j]);
    }
    // Two inputs per pass halve accumulator traffic; the fold order stays left to right.
    for (; next + 1 < num_inputs; next += 2) {
      const S* x = static_cast<const S*>(inputs[next]) + base;
      const S* y = static_cast<const S*>(inputs[next + 1]) + base;
      for (size_t j = 0; j < n; ++j) {
        acc[j] = Op::Apply(Op::Apply(acc[j], D::Load(x[j])), D::Load(y[j]));
      }
    }
    if (next < num_inputs) {
      const S* x = static_cast<const S*>(inputs[next]) + base;
      for (size_t j = 0; j < n; ++j) acc[j] = Op::Apply(acc[j], D::Load(x[j]));
    }
    Finish<D, Op>(acc, n, num_inputs);
    const S* result;
    if constexpr (std::is_same_v<S, A>) {
      result = acc;
    } else {
      for (size_t j = 0; j < n; ++j) staged[j] = D::Store(acc[j]);
      result = staged;
    }
    for (int o = 0; o < num_outputs; ++o) {
      std::memcpy(static_cast<S*>(outputs[o]) + base, result, n * sizeof(S));
    }
  }
}

template <typename D>
void ReduceDType(ReduceOp op, const void* const* inputs, int num_inputs, void* const* outputs,
                 int num_outputs, size_t count) {
  switch (op) {
    case ReduceOp::kSum:
      return ReduceTyped<D, Sum>(inputs, num_inputs, outputs, num_outputs, count);
    case ReduceOp::kAvg:
      return ReduceTyped<D, Avg>(inputs, num_inputs, outputs, num_outputs, count);
    case ReduceOp::kMin:
      return ReduceTyped<D, Min>(inputs, num_inputs, outputs, num_outputs, count);
    case ReduceOp::kMax:
      return ReduceTyped<D, Max>(inputs, num_inputs, outputs, num_outputs, count);
    case ReduceOp::kProd:
      return ReduceTyped<D, Prod>(inputs, num_inputs, outputs, num_outputs, count);
  }
  OUTRIDER_CHECK(false && "unreachable: op validated by IsSupported");
}

}  // namespace

bool IsSupported(DType dtype, ReduceOp op) {
  return static_cast<uint32_t>(dtype) < ipc::kNumDTypes &&
         static_cast<uint32_t>(op) < ipc::kNumReduceOps;
}

void ReduceInto(DType dtype, ReduceOp op, const void* const* inputs, int num_inputs,
                void* const* outputs, int num_outputs, size_t count) {
  OUTRIDER_CHECK(IsSupported(dtype, op));
  OUTRIDER_CHECK(num_inputs >= 1);
  OUTRIDER_CHECK(num_outputs >= 0);
  switch (dtype) {
    case DType::kF32:
      return ReduceDType<F32>(op, inputs, num_inputs, outputs, num_outputs, count);
    case DType::kF64:
      return ReduceDType<F64>(op, inputs, num_inputs, outputs, num_outputs, count);
    case DType::kF16:
      return ReduceDType<F16>(op, inputs, num_inputs, outputs, num_outputs, count);
    case DType::kBF16:
      return ReduceDType<BF16>(op, inputs, num_inputs, outputs, num_outputs, count);
    case DType::kI32:
      return ReduceDType<I32>(op, inputs, num_inputs, outputs, num_outputs, count);
    case DType::kI64:
      return ReduceDType<I64>(op, inputs, num_inputs, outputs, num_outputs, count);
  }
  OUTRIDER_CHECK(false && "unreachable: dtype validated by IsSupported");
}

float HalfToFloat(uint16_t h) { return half::HalfBitsToFloat(h); }
uint16_t FloatToHalf(float f) { return half::FloatToHalfBits(f); }
float BFloat16ToFloat(uint16_t b) { return half::BFloat16BitsToFloat(b); }
uint16_t FloatToBFloat16(float f) { return half::FloatToBFloat16Bits(f); }

}  // namespace outrider::engine
