// Reduction kernels: one template per (dtype, op) over L1-sized blocks. Element j of every input
// is read before element j of the first output is written, and the other outputs are block copies
// of the first, so outputs may be inputs. The loops are plain element-wise loops that GCC
// auto-vectorizes; on x86-64 an AVX2 clone is picked at load time and f16 uses F16C where present.
#include "agent/engine/dataplane/reduce.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <type_traits>

#include "agent/engine/dataplane/half.h"
#include "base/check.h"

// ThreadSanitizer builds go without: their ifunc resolvers would run (instrumented) before the
// sanitizer's runtime is up, and crash the program at load time.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
#define OUTRIDER_X86_DISPATCH 1
#include <immintrin.h>
#else
#define OUTRIDER_X86_DISPATCH 0
#endif

// The NaN handling below relies on x != x; -ffast-math would silently break it.
#if defined(__FAST_MATH__) || defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__
#error "reduce.cc must not be compiled with -ffast-math or -ffinite-math-only"
#endif

namespace outrider::agent {
namespace {

using ipc::DType;
using ipc::ReduceOp;

// Elements per block: long runs per stream help the hardware prefetchers (which stop at 4 KiB
// pages), and the 32 KiB accumulator (on the stack) stays in L1.
template <typename Acc>
constexpr size_t kBlockElems = (32 << 10) / sizeof(Acc);

#define OUTRIDER_INLINE inline __attribute__((always_inline))
// Baseline x86-64 has only SSE2; AVX2 doubles the vector width on machines that have it.
#if OUTRIDER_X86_DISPATCH
#define OUTRIDER_MULTIVERSION __attribute__((target_clones("avx2", "default")))
#else
#define OUTRIDER_MULTIVERSION
#endif

// How a dtype is stored and accumulated. Integers accumulate in their own type; the ops route
// sum/prod through unsigned arithmetic so that wraparound is defined.
template <typename T>
struct Native {
  using Storage = T;
  using Acc = T;
  static Acc Load(Storage v) { return v; }
  static Storage Store(Acc a) { return a; }
};
using F32 = Native<float>;
using F64 = Native<double>;
using I32 = Native<int32_t>;
using I64 = Native<int64_t>;
using U8 = Native<uint8_t>;
using I8 = Native<int8_t>;
using I16 = Native<int16_t>;
struct F16 {
  using Storage = uint16_t;
  using Acc = float;
  static OUTRIDER_INLINE Acc Load(Storage v) { return half::HalfBitsToFloat(v); }
  static OUTRIDER_INLINE Storage Store(Acc a) { return half::FloatToHalfBits(a); }
};
struct BF16 {
  using Storage = uint16_t;
  using Acc = float;
  // No NaN quieting here (unlike BFloat16ToFloat): Store() quiets every NaN result anyway.
  static OUTRIDER_INLINE Acc Load(Storage v) { return std::bit_cast<float>(uint32_t{v} << 16); }
  static OUTRIDER_INLINE Storage Store(Acc a) { return half::FloatToBFloat16Bits(a); }
};
// A bool's truth as a byte of 0 or 1: unlike C++ bool, folds over it vectorize as byte operations.
enum class Truth : uint8_t { kFalse = 0, kTrue = 1 };
// A byte that is true when nonzero (torch lets other bytes than 0 and 1 into a bool tensor);
// results are 0 or 1.
struct Bool {
  using Storage = uint8_t;
  using Acc = Truth;
  static OUTRIDER_INLINE Acc Load(Storage v) { return static_cast<Truth>(v != 0); }
  static OUTRIDER_INLINE Storage Store(Acc a) { return static_cast<Storage>(a); }
};

// Integer sum and product in unsigned arithmetic, where wraparound is defined. Types narrower
// than int would promote to signed int, where a 16-bit product can overflow: they widen to
// unsigned int instead.
template <typename A>
using Wrapping =
    std::conditional_t<(sizeof(A) < sizeof(unsigned)), unsigned, std::make_unsigned_t<A>>;

// Bool sum and prod are or and and: C++ bool arithmetic (gloo's sum<bool>, product<bool>), and
// the truth values torch's gloo backend gives for 0/1 bytes (it reduces bool tensors as uint8,
// so its sum of 256 trues would wrap to false; this one does not).
struct Sum {
  template <typename A>
  static OUTRIDER_INLINE A Apply(A acc, A x) {
    if constexpr (std::is_same_v<A, Truth>) {
      return static_cast<Truth>(static_cast<uint8_t>(acc) | static_cast<uint8_t>(x));
    } else if constexpr (std::is_integral_v<A>) {
      using U = Wrapping<A>;
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
    if constexpr (std::is_same_v<A, Truth>) {
      return static_cast<Truth>(static_cast<uint8_t>(acc) & static_cast<uint8_t>(x));
    } else if constexpr (std::is_integral_v<A>) {
      using U = Wrapping<A>;
      return static_cast<A>(static_cast<U>(acc) * static_cast<U>(x));
    } else {
      return acc * x;
    }
  }
};
// Min/Max take x when it is NaN, and never replace a NaN accumulator (comparisons with NaN are
// false), so a NaN anywhere in the fold survives. Written as selects so they vectorize. On
// Truth (0 < 1) they are and (min) and or (max).
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

// Applied to every result element: the avg division, NaN quieting, conversion to storage.
template <typename D, typename Op>
class Finisher {
 public:
  using A = typename D::Acc;
  explicit Finisher(int num_inputs) : divisor_(static_cast<Divisor>(num_inputs)) {}

  OUTRIDER_INLINE typename D::Storage operator()(A v) const {
    if constexpr (std::is_same_v<Op, Avg>) {
      if constexpr (std::is_integral_v<A> && sizeof(A) <= 4) {
        // Exact: |sum| < 2^31 (2^15 for 8- and 16-bit integers) and the double (float) quotient
        // never rounds across an integer, so the truncating conversion equals integer division;
        // unlike idiv it vectorizes.
        v = static_cast<A>(static_cast<Divisor>(v) / divisor_);
      } else {
        v /= divisor_;
      }
    }
    if constexpr (std::is_same_v<typename D::Storage, A> && std::is_floating_point_v<A>) {
      // Min/max and single-input folds can pass a signaling NaN through (x86 arithmetic already
      // quiets). A float-domain select: SSE2 lacks the 64-bit integer compare a mask would need.
      using Bits = std::conditional_t<sizeof(A) == 4, uint32_t, uint64_t>;
      constexpr Bits kQuiet = Bits{1} << (std::numeric_limits<A>::digits - 2);
      const A quiet = std::bit_cast<A>(std::bit_cast<Bits>(v) | kQuiet);
      v = v != v ? quiet : v;
    }
    return D::Store(v);  // f16/bf16: rounds once and quiets NaN
  }

 private:
  using Divisor = std::conditional_t<std::is_same_v<A, int32_t>, double,
                                     std::conditional_t<(sizeof(A) < 4), float, A>>;
  Divisor divisor_;
};

// Every variant must write the first output only after reading all inputs of the block; the other
// outputs are copies of it, which may then overwrite inputs.
template <typename S>
OUTRIDER_INLINE void CopyToOtherOutputs(void* const* outputs, int num_outputs, size_t base,
                                        size_t n) {
  const S* first = static_cast<const S*>(outputs[0]) + base;
  for (int o = 1; o < num_outputs; ++o) {
    S* dst = static_cast<S*>(outputs[o]) + base;
    if (dst != first) std::memcpy(dst, first, n * sizeof(S));
  }
}

// One block of n elements. Passes over the inputs fold two at a time into `acc`; the last pass
// writes `out` directly. `out` may be one of the inputs: every pass reads and writes element j in
// the same iteration, so there is no loop-carried dependence and ivdep is safe. (GCC's pragma:
// clang has none of that meaning, and vectorizes these loops after its own checks.)
#if defined(__clang__)
#define OUTRIDER_IVDEP
#else
#define OUTRIDER_IVDEP _Pragma("GCC ivdep")
#endif
template <typename D, typename Op>
OUTRIDER_INLINE void ReduceBlock(const void* const* inputs, int num_inputs, size_t base,
                                 typename D::Storage* out, typename D::Acc* acc,
                                 const Finisher<D, Op>& finish, size_t n) {
  const auto in = [&](int i) { return static_cast<const typename D::Storage*>(inputs[i]) + base; };
  if (num_inputs == 1) {
    const auto* x = in(0);
    OUTRIDER_IVDEP
    for (size_t j = 0; j < n; ++j) out[j] = finish(D::Load(x[j]));
    return;
  }
  if (num_inputs == 2) {
    const auto *x = in(0), *y = in(1);
    OUTRIDER_IVDEP
    for (size_t j = 0; j < n; ++j) out[j] = finish(Op::Apply(D::Load(x[j]), D::Load(y[j])));
    return;
  }
  {
    const auto *x = in(0), *y = in(1);
    for (size_t j = 0; j < n; ++j) acc[j] = Op::Apply(D::Load(x[j]), D::Load(y[j]));
  }
  int next = 2;
  for (; num_inputs - next > 2; next += 2) {
    const auto *x = in(next), *y = in(next + 1);
    for (size_t j = 0; j < n; ++j) {
      acc[j] = Op::Apply(Op::Apply(acc[j], D::Load(x[j])), D::Load(y[j]));
    }
  }
  if (num_inputs - next == 2) {
    const auto *x = in(next), *y = in(next + 1);
    OUTRIDER_IVDEP
    for (size_t j = 0; j < n; ++j) {
      out[j] = finish(Op::Apply(Op::Apply(acc[j], D::Load(x[j])), D::Load(y[j])));
    }
  } else {
    const auto* x = in(next);
    OUTRIDER_IVDEP
    for (size_t j = 0; j < n; ++j) out[j] = finish(Op::Apply(acc[j], D::Load(x[j])));
  }
}

template <typename D, typename Op>
OUTRIDER_MULTIVERSION void ReduceTyped(const void* const* inputs, int num_inputs,
                                       void* const* outputs, int num_outputs, size_t count) {
  using S = typename D::Storage;
  if (num_outputs == 0) return;
  const Finisher<D, Op> finish(num_inputs);
  constexpr size_t kBlock = kBlockElems<typename D::Acc>;
  alignas(64) typename D::Acc acc[kBlock];
  for (size_t base = 0; base < count; base += kBlock) {
    const size_t n = std::min(kBlock, count - base);
    S* out = static_cast<S*>(outputs[0]) + base;
    // A constant trip count for full blocks: no epilogue, and vectorized even at -O2.
    if (n == kBlock) {
      ReduceBlock<D, Op>(inputs, num_inputs, base, out, acc, finish, kBlock);
    } else {
      ReduceBlock<D, Op>(inputs, num_inputs, base, out, acc, finish, n);
    }
    CopyToOtherOutputs<S>(outputs, num_outputs, base, n);
  }
}

#if OUTRIDER_X86_DISPATCH
// F16C converts 8 halves per instruction, several times cheaper than the bit manipulation; every
// x86-64 CPU since Ivy Bridge / Piledriver has it (with AVX, which is all the f32 math here needs).
// The rounding is the same IEEE round-to-nearest-even as half.h, so results match bitwise; only NaN
// payloads may differ (cvtps2ph keeps them, half.h does not).
#define OUTRIDER_F16C __attribute__((target("avx,f16c")))
using F32x8 = float __attribute__((vector_size(32)));

OUTRIDER_F16C OUTRIDER_INLINE F32x8 LoadHalves(const uint16_t* p) {
  return F32x8(_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
}

// cvtps2ph returns NaNs quiet, as ReduceInto promises.
OUTRIDER_F16C OUTRIDER_INLINE void StoreHalves(uint16_t* p, F32x8 v) {
  const __m128i h = _mm256_cvtps_ph(__m256(v), _MM_FROUND_TO_NEAREST_INT);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), h);
}

// Op::Apply on 8 lanes. Not Op::Apply<F32x8> itself: a default-target function taking AVX
// vectors draws -Wpsabi notes. Must match the scalar ops exactly.
template <typename Op>
OUTRIDER_F16C OUTRIDER_INLINE F32x8 ApplyVec(F32x8 acc, F32x8 x) {
  if constexpr (std::is_same_v<Op, Sum> || std::is_same_v<Op, Avg>) return acc + x;
  if constexpr (std::is_same_v<Op, Prod>) return acc * x;
  if constexpr (std::is_same_v<Op, Min>) return (x < acc || x != x) ? x : acc;
  if constexpr (std::is_same_v<Op, Max>) return (x > acc || x != x) ? x : acc;
}

// Same fold order as ReduceTyped. Chunks of 512 elements keep the accumulator in L1 and stream
// all inputs together.
template <typename Op>
OUTRIDER_F16C void ReduceHalfF16C(const void* const* inputs, int num_inputs, void* const* outputs,
                                  int num_outputs, size_t count) {
  constexpr size_t kChunkVecs = 64;
  if (num_outputs == 0) return;
  F32x8 acc[kChunkVecs];
  const float divisor = static_cast<float>(num_inputs);
  constexpr size_t kBlock = kBlockElems<float>;
  for (size_t base = 0; base < count; base += kBlock) {
    const size_t block_n = std::min(kBlock, count - base);
    for (size_t c = base; c < base + block_n; c += kChunkVecs * 8) {
      const size_t n = std::min(kChunkVecs * 8, base + block_n - c), vecs = n / 8;
      const auto in = [&](int i) { return static_cast<const uint16_t*>(inputs[i]) + c; };
      uint16_t* out = static_cast<uint16_t*>(outputs[0]) + c;
      if (num_inputs == 1) {
        for (size_t v = 0; v < vecs; ++v) acc[v] = LoadHalves(in(0) + 8 * v);
      } else {
        const uint16_t *x = in(0), *y = in(1);
        for (size_t v = 0; v < vecs; ++v) {
          acc[v] = ApplyVec<Op>(LoadHalves(x + 8 * v), LoadHalves(y + 8 * v));
        }
      }
      for (int i = 2; i < num_inputs; ++i) {
        const uint16_t* x = in(i);
        for (size_t v = 0; v < vecs; ++v) acc[v] = ApplyVec<Op>(acc[v], LoadHalves(x + 8 * v));
      }
      for (size_t v = 0; v < vecs; ++v) {
        StoreHalves(out + 8 * v, std::is_same_v<Op, Avg> ? acc[v] / divisor : acc[v]);
      }
      for (size_t j = vecs * 8; j < n; ++j) {  // the last < 8 elements of the buffer
        float a = half::HalfBitsToFloat(in(0)[j]);
        for (int i = 1; i < num_inputs; ++i) a = Op::Apply(a, half::HalfBitsToFloat(in(i)[j]));
        out[j] = half::FloatToHalfBits(std::is_same_v<Op, Avg> ? a / divisor : a);
      }
    }
    CopyToOtherOutputs<uint16_t>(outputs, num_outputs, base, block_n);
  }
}

bool HaveF16C() {
  static const bool have = [] {
    __builtin_cpu_init();  // we may run before libgcc's constructor (static initializers)
    return __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c");
  }();
  return have;
}
#endif

template <typename D, typename Op>
void Reduce(const void* const* inputs, int num_inputs, void* const* outputs, int num_outputs,
            size_t count) {
#if OUTRIDER_X86_DISPATCH
  if constexpr (std::is_same_v<D, F16>) {
    if (HaveF16C()) return ReduceHalfF16C<Op>(inputs, num_inputs, outputs, num_outputs, count);
  }
#endif
  ReduceTyped<D, Op>(inputs, num_inputs, outputs, num_outputs, count);
}

template <typename D>
void ReduceDType(ReduceOp op, const void* const* inputs, int num_inputs, void* const* outputs,
                 int num_outputs, size_t count) {
  switch (op) {
    case ReduceOp::kSum:
      return Reduce<D, Sum>(inputs, num_inputs, outputs, num_outputs, count);
    case ReduceOp::kAvg:
      if constexpr (!std::is_same_v<D, Bool>) {
        return Reduce<D, Avg>(inputs, num_inputs, outputs, num_outputs, count);
      }
      break;
    case ReduceOp::kMin:
      return Reduce<D, Min>(inputs, num_inputs, outputs, num_outputs, count);
    case ReduceOp::kMax:
      return Reduce<D, Max>(inputs, num_inputs, outputs, num_outputs, count);
    case ReduceOp::kProd:
      return Reduce<D, Prod>(inputs, num_inputs, outputs, num_outputs, count);
  }
  OUTRIDER_CHECK(false && "unreachable: op validated by IsSupported");
}

}  // namespace

bool IsSupported(DType dtype, ReduceOp op) { return ipc::ReduceRefusal(dtype, op).empty(); }

size_t KernelAlignment(DType dtype) {
  if (dtype == DType::kC64) return alignof(float);
  if (dtype == DType::kC128) return alignof(double);
  return ipc::DTypeSize(dtype);
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
    case DType::kU8:
      return ReduceDType<U8>(op, inputs, num_inputs, outputs, num_outputs, count);
    case DType::kI8:
      return ReduceDType<I8>(op, inputs, num_inputs, outputs, num_outputs, count);
    case DType::kI16:
      return ReduceDType<I16>(op, inputs, num_inputs, outputs, num_outputs, count);
    case DType::kBool:
      return ReduceDType<Bool>(op, inputs, num_inputs, outputs, num_outputs, count);
    // A complex number is its two parts: sum and avg (all IsSupported lets through) act on each
    // part alone, as on torch.view_as_real of the tensor.
    case DType::kC64:
      return ReduceDType<F32>(op, inputs, num_inputs, outputs, num_outputs, 2 * count);
    case DType::kC128:
      return ReduceDType<F64>(op, inputs, num_inputs, outputs, num_outputs, 2 * count);
  }
  OUTRIDER_CHECK(false && "unreachable: dtype validated by IsSupported");
}

float HalfToFloat(uint16_t h) { return half::HalfBitsToFloat(h); }
uint16_t FloatToHalf(float f) { return half::FloatToHalfBits(f); }
float BFloat16ToFloat(uint16_t b) { return half::BFloat16BitsToFloat(b); }
uint16_t FloatToBFloat16(float f) { return half::FloatToBFloat16Bits(f); }

}  // namespace outrider::agent
