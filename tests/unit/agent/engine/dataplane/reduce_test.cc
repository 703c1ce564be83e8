// Reduction kernels against a plain scalar reference: every supported dtype x op, odd counts,
// aliasing outputs, wraparound of small integers, bool bytes other than 0 and 1, complex parts,
// the refused pairs, and the f16/bf16 conversions (f16 checked against GCC's _Float16, bf16
// against a nearest-value search in double).
#include "agent/engine/dataplane/reduce.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace outrider::agent {
namespace {

using ipc::DType;
using ipc::ReduceOp;

constexpr DType kAllDTypes[] = {DType::kF32, DType::kF64,  DType::kF16, DType::kBF16,
                                DType::kI32, DType::kI64,  DType::kU8,  DType::kI8,
                                DType::kI16, DType::kBool, DType::kC64, DType::kC128};
constexpr ReduceOp kAllOps[] = {ReduceOp::kSum, ReduceOp::kAvg, ReduceOp::kMin, ReduceOp::kMax,
                                ReduceOp::kProd};

// Local names: the test must not depend on ipc/protocol.cc.
const char* Name(DType d) {
  static const char* const kNames[] = {"F32", "F64", "F16", "BF16", "I32", "I64",
                                       "U8",  "I8",  "I16", "Bool", "C64", "C128"};
  return kNames[static_cast<int>(d)];
}
const char* Name(ReduceOp op) {
  static const char* const kNames[] = {"Sum", "Avg", "Min", "Max", "Prod"};
  return kNames[static_cast<int>(op)];
}

uint16_t RefFloatToHalf(float f) { return std::bit_cast<uint16_t>(static_cast<_Float16>(f)); }
float RefHalfToFloat(uint16_t h) { return static_cast<float>(std::bit_cast<_Float16>(h)); }
float RefBFloat16ToFloat(uint16_t b) { return std::bit_cast<float>(uint32_t{b} << 16); }

// Picks the nearer of the two bf16 neighbours of f (ties to the even one), overflowing to Inf
// past the midpoint between the largest finite bf16 and 2^128, as IEEE rounding does.
uint16_t RefFloatToBFloat16(float f) {
  const uint32_t u = std::bit_cast<uint32_t>(f);
  if (std::isnan(f)) return static_cast<uint16_t>((u >> 16) | 0x7fc0u);
  const uint16_t lo = static_cast<uint16_t>(u >> 16);  // truncated toward zero
  if ((u & 0xffffu) == 0) return lo;
  const uint16_t hi = lo + 1;
  const double x = std::fabs(static_cast<double>(f));
  const double lo_v = std::fabs(static_cast<double>(RefBFloat16ToFloat(lo)));
  const double hi_v =
      (lo & 0x7fffu) == 0x7f7fu ? 0x1p128 : std::fabs(static_cast<double>(RefBFloat16ToFloat(hi)));
  if (x - lo_v != hi_v - x) return x - lo_v < hi_v - x ? lo : hi;
  return (lo & 1u) ? hi : lo;
}

bool HalfIsNaN(uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x03ffu) != 0; }
bool BFloat16IsNaN(uint16_t b) { return (b & 0x7f80u) == 0x7f80u && (b & 0x007fu) != 0; }

// Per-dtype reference: storage type S, accumulator A, conversions and random values. Floats are
// mostly small (so sums and products stay meaningful) with ~1/64 arbitrary bit patterns, which
// brings in NaN, Inf, subnormals and huge values.
template <DType D>
struct Ref;
template <typename S, typename A>
struct FloatRefBase {
  using Storage = S;
  using Acc = A;
  static bool IsNaN(S v) { return v != v; }
  static bool IsQuietNaN(S v) {
    using Bits = std::conditional_t<sizeof(S) == 4, uint32_t, uint64_t>;
    return IsNaN(v) && (std::bit_cast<Bits>(v) >> (std::numeric_limits<S>::digits - 2) & 1);
  }
  static A Load(S v) { return v; }
  static S Store(A a) { return a; }
  static S Random(std::mt19937_64& rng) {
    if (rng() % 64 == 0) {
      using Bits = std::conditional_t<sizeof(S) == 4, uint32_t, uint64_t>;
      return std::bit_cast<S>(static_cast<Bits>(rng()));
    }
    return std::uniform_real_distribution<S>(-4, 4)(rng);
  }
};
template <>
struct Ref<DType::kF32> : FloatRefBase<float, float> {};
template <>
struct Ref<DType::kF64> : FloatRefBase<double, double> {};
template <>
struct Ref<DType::kF16> {
  using Storage = uint16_t;
  using Acc = float;
  static bool IsNaN(uint16_t v) { return HalfIsNaN(v); }
  static bool IsQuietNaN(uint16_t v) { return HalfIsNaN(v) && (v & 0x0200u); }
  static float Load(uint16_t v) { return RefHalfToFloat(v); }
  static uint16_t Store(float a) { return RefFloatToHalf(a); }
  static uint16_t Random(std::mt19937_64& rng) {
    if (rng() % 64 == 0) return static_cast<uint16_t>(rng());
    return RefFloatToHalf(std::uniform_real_distribution<float>(-4, 4)(rng));
  }
};
template <>
struct Ref<DType::kBF16> {
  using Storage = uint16_t;
  using Acc = float;
  static bool IsNaN(uint16_t v) { return BFloat16IsNaN(v); }
  static bool IsQuietNaN(uint16_t v) { return BFloat16IsNaN(v) && (v & 0x0040u); }
  static float Load(uint16_t v) { return RefBFloat16ToFloat(v); }
  static uint16_t Store(float a) { return RefFloatToBFloat16(a); }
  static uint16_t Random(std::mt19937_64& rng) {
    if (rng() % 64 == 0) return static_cast<uint16_t>(rng());
    return RefFloatToBFloat16(std::uniform_real_distribution<float>(-4, 4)(rng));
  }
};
template <typename S>
struct IntRefBase {
  using Storage = S;
  using Acc = S;
  static bool IsNaN(S) { return false; }
  static bool IsQuietNaN(S) { return false; }
  static S Load(S v) { return v; }
  static S Store(S a) { return a; }
  static S Random(std::mt19937_64& rng) { return static_cast<S>(rng()); }  // full range: wraps
};
template <>
struct Ref<DType::kI32> : IntRefBase<int32_t> {};
template <>
struct Ref<DType::kI64> : IntRefBase<int64_t> {};
template <>
struct Ref<DType::kU8> : IntRefBase<uint8_t> {};
template <>
struct Ref<DType::kI8> : IntRefBase<int8_t> {};
template <>
struct Ref<DType::kI16> : IntRefBase<int16_t> {};
template <>
struct Ref<DType::kBool> {
  using Storage = uint8_t;
  using Acc = bool;
  static bool IsNaN(uint8_t) { return false; }
  static bool IsQuietNaN(uint8_t) { return false; }
  static bool Load(uint8_t v) { return v != 0; }
  static uint8_t Store(bool a) { return a ? 1 : 0; }
  // Mostly 0 and 1, one in four an arbitrary byte (true unless 0).
  static uint8_t Random(std::mt19937_64& rng) {
    const uint64_t r = rng();
    return static_cast<uint8_t>(r % 4 == 0 ? r >> 8 : r >> 8 & 1);
  }
};
// Complex numbers: std::complex arithmetic, compared part by part as the part's float type.
template <typename T, DType Part>
struct ComplexRefBase {
  using Storage = std::complex<T>;
  using Acc = std::complex<T>;
  static constexpr DType kPart = Part;
  static Acc Load(Storage v) { return v; }
  static Storage Store(Acc a) { return a; }
  static Storage Random(std::mt19937_64& rng) {
    return {Ref<Part>::Random(rng), Ref<Part>::Random(rng)};
  }
};
template <>
struct Ref<DType::kC64> : ComplexRefBase<float, DType::kF32> {};
template <>
struct Ref<DType::kC128> : ComplexRefBase<double, DType::kF64> {};

template <typename A>
constexpr bool kIsComplex = false;
template <typename T>
constexpr bool kIsComplex<std::complex<T>> = true;

// Sum and avg only, for complex numbers; bool sum/max are or, prod/min are and. Integers wrap
// (computed in uint64_t, which reduces modulo 2^64 and so modulo the type's width too).
template <typename A>
A RefApply(ReduceOp op, A acc, A x) {
  if constexpr (kIsComplex<A>) {
    return acc + x;
  } else if constexpr (std::is_same_v<A, bool>) {
    return op == ReduceOp::kSum || op == ReduceOp::kMax ? (acc || x) : (acc && x);
  } else if constexpr (std::is_integral_v<A>) {
    switch (op) {
      case ReduceOp::kSum:
      case ReduceOp::kAvg:
        return static_cast<A>(static_cast<uint64_t>(acc) + static_cast<uint64_t>(x));
      case ReduceOp::kProd:
        return static_cast<A>(static_cast<uint64_t>(acc) * static_cast<uint64_t>(x));
      case ReduceOp::kMin:
        return x < acc ? x : acc;
      case ReduceOp::kMax:
        return x > acc ? x : acc;
    }
  } else {
    switch (op) {
      case ReduceOp::kSum:
      case ReduceOp::kAvg:
        return acc + x;
      case ReduceOp::kProd:
        return acc * x;
      case ReduceOp::kMin:
        if (std::isnan(acc) || std::isnan(x)) return std::numeric_limits<A>::quiet_NaN();
        return x < acc ? x : acc;
      case ReduceOp::kMax:
        if (std::isnan(acc) || std::isnan(x)) return std::numeric_limits<A>::quiet_NaN();
        return x > acc ? x : acc;
    }
  }
  return acc;
}

template <DType D>
std::vector<typename Ref<D>::Storage> Reference(
    ReduceOp op, const std::vector<std::vector<typename Ref<D>::Storage>>& in, size_t offset,
    size_t count) {
  using A = typename Ref<D>::Acc;
  std::vector<typename Ref<D>::Storage> out(count);
  for (size_t j = 0; j < count; ++j) {
    A acc = Ref<D>::Load(in[0][offset + j]);
    for (size_t i = 1; i < in.size(); ++i) acc = RefApply(op, acc, Ref<D>::Load(in[i][offset + j]));
    if constexpr (kIsComplex<A>) {
      if (op == ReduceOp::kAvg) acc /= static_cast<typename A::value_type>(in.size());  // each part
    } else if constexpr (!std::is_same_v<A, bool>) {
      if (op == ReduceOp::kAvg) acc = acc / static_cast<A>(in.size());  // integers: truncates
    }
    out[j] = Ref<D>::Store(acc);
  }
  return out;
}

template <DType D>
::testing::AssertionResult SameElements(const typename Ref<D>::Storage* got,
                                        const std::vector<typename Ref<D>::Storage>& want) {
  if constexpr (kIsComplex<typename Ref<D>::Storage>) {
    using Part = typename Ref<Ref<D>::kPart>::Storage;
    std::vector<Part> want_parts(2 * want.size());
    if (!want.empty()) std::memcpy(want_parts.data(), want.data(), want.size() * sizeof(want[0]));
    return SameElements<Ref<D>::kPart>(reinterpret_cast<const Part*>(got), want_parts);
  } else {
    for (size_t j = 0; j < want.size(); ++j) {
      const bool both_nan = Ref<D>::IsNaN(got[j]) && Ref<D>::IsNaN(want[j]);
      if (Ref<D>::IsNaN(got[j]) && !Ref<D>::IsQuietNaN(got[j])) {
        return ::testing::AssertionFailure() << "signaling NaN at element " << j;
      }
      if (!both_nan && std::memcmp(&got[j], &want[j], sizeof(got[j])) != 0) {
        return ::testing::AssertionFailure()
               << "element " << j << ": got " << +got[j] << ", want " << +want[j];
      }
    }
    return ::testing::AssertionSuccess();
  }
}

enum class Outputs {
  kSeparate,       // two separate outputs whose guard elements must stay untouched
  kInPlace,        // outputs[i] == inputs[i]: allreduce over L local clients
  kInPlaceRotated  // outputs[i] == inputs[(i + 1) % n]: the first output is read last
};

// Reduces random inputs that start one element past an allocation (so nothing is aligned) and
// compares with the reference.
template <DType D>
::testing::AssertionResult CheckCase(ReduceOp op, int num_inputs, size_t count, Outputs mode) {
  using S = typename Ref<D>::Storage;
  std::mt19937_64 rng(count * 131 + num_inputs * 7 + static_cast<int>(op));
  std::vector<std::vector<S>> in(num_inputs, std::vector<S>(count + 1));
  for (auto& v : in)
    for (auto& x : v) x = Ref<D>::Random(rng);
  const std::vector<S> want = Reference<D>(op, in, 1, count);
  std::vector<const void*> in_ptrs;
  for (auto& v : in) in_ptrs.push_back(v.data() + 1);
  std::vector<std::vector<S>> separate(mode == Outputs::kSeparate ? 2 : 0,
                                       std::vector<S>(count + 2, S{42}));
  std::vector<void*> out_ptrs;
  for (auto& v : separate) out_ptrs.push_back(v.data() + 1);
  for (int i = 0; mode != Outputs::kSeparate && i < num_inputs; ++i) {
    const int k = mode == Outputs::kInPlace ? i : (i + 1) % num_inputs;
    out_ptrs.push_back(in[k].data() + 1);
  }
  ReduceInto(D, op, in_ptrs.data(), num_inputs, out_ptrs.data(), static_cast<int>(out_ptrs.size()),
             count);
  for (size_t o = 0; o < out_ptrs.size(); ++o) {
    auto r = SameElements<D>(static_cast<const S*>(out_ptrs[o]), want);
    if (!r) return r << " (output " << o << ")";
  }
  for (auto& v : separate) {
    if (v.front() != S{42} || v.back() != S{42}) {
      return ::testing::AssertionFailure() << "wrote outside the output";
    }
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult CheckCase(DType dtype, ReduceOp op, int num_inputs, size_t count,
                                     Outputs mode) {
  switch (dtype) {
    case DType::kF32:
      return CheckCase<DType::kF32>(op, num_inputs, count, mode);
    case DType::kF64:
      return CheckCase<DType::kF64>(op, num_inputs, count, mode);
    case DType::kF16:
      return CheckCase<DType::kF16>(op, num_inputs, count, mode);
    case DType::kBF16:
      return CheckCase<DType::kBF16>(op, num_inputs, count, mode);
    case DType::kI32:
      return CheckCase<DType::kI32>(op, num_inputs, count, mode);
    case DType::kI64:
      return CheckCase<DType::kI64>(op, num_inputs, count, mode);
    case DType::kU8:
      return CheckCase<DType::kU8>(op, num_inputs, count, mode);
    case DType::kI8:
      return CheckCase<DType::kI8>(op, num_inputs, count, mode);
    case DType::kI16:
      return CheckCase<DType::kI16>(op, num_inputs, count, mode);
    case DType::kBool:
      return CheckCase<DType::kBool>(op, num_inputs, count, mode);
    case DType::kC64:
      return CheckCase<DType::kC64>(op, num_inputs, count, mode);
    case DType::kC128:
      return CheckCase<DType::kC128>(op, num_inputs, count, mode);
  }
  return ::testing::AssertionFailure() << "unknown dtype";
}

class ReduceAllPairsTest : public ::testing::TestWithParam<std::tuple<DType, ReduceOp>> {};

TEST_P(ReduceAllPairsTest, MatchesScalarReferenceForOneToEightInputs) {
  const auto [dtype, op] = GetParam();
  for (int num_inputs = 1; num_inputs <= 8; ++num_inputs) {
    // Around vector widths, F16C chunks (512) and blocks (4096 or 8192), and far past them.
    for (size_t count : {size_t{0}, size_t{1}, size_t{7}, size_t{513}, size_t{4099}, size_t{8192},
                         size_t{100003}}) {
      EXPECT_TRUE(CheckCase(dtype, op, num_inputs, count, Outputs::kSeparate))
          << "num_inputs=" << num_inputs << " count=" << count;
    }
  }
}

TEST_P(ReduceAllPairsTest, OutputsMayAliasInputs) {
  const auto [dtype, op] = GetParam();
  for (int num_inputs = 1; num_inputs <= 8; ++num_inputs) {
    for (size_t count : {size_t{7}, size_t{4099}, size_t{100003}}) {
      for (Outputs mode : {Outputs::kInPlace, Outputs::kInPlaceRotated}) {
        EXPECT_TRUE(CheckCase(dtype, op, num_inputs, count, mode))
            << "num_inputs=" << num_inputs << " count=" << count
            << " rotated=" << (mode == Outputs::kInPlaceRotated);
      }
    }
  }
}

// Every op but bool avg and complex min, max and prod.
bool DocumentedPair(DType d, ReduceOp op) {
  if (d == DType::kBool) return op != ReduceOp::kAvg;
  if (d == DType::kC64 || d == DType::kC128) return op == ReduceOp::kSum || op == ReduceOp::kAvg;
  return true;
}

std::vector<std::tuple<DType, ReduceOp>> DocumentedPairs() {
  std::vector<std::tuple<DType, ReduceOp>> pairs;
  for (DType d : kAllDTypes) {
    for (ReduceOp op : kAllOps) {
      if (DocumentedPair(d, op)) pairs.emplace_back(d, op);
    }
  }
  return pairs;
}

INSTANTIATE_TEST_SUITE_P(AllDTypesAndOps, ReduceAllPairsTest,
                         ::testing::ValuesIn(DocumentedPairs()), [](const auto& info) {
                           return std::string(Name(std::get<0>(info.param))) + "_" +
                                  Name(std::get<1>(info.param));
                         });

TEST(ReduceTest, SupportsTheDocumentedPairsAndNothingOutsideTheEnums) {
  for (DType d : kAllDTypes) {
    for (ReduceOp op : kAllOps)
      EXPECT_EQ(IsSupported(d, op), DocumentedPair(d, op)) << Name(d) << " " << Name(op);
  }
  EXPECT_FALSE(IsSupported(static_cast<DType>(ipc::kNumDTypes), ReduceOp::kSum));
  EXPECT_FALSE(IsSupported(DType::kF32, static_cast<ReduceOp>(ipc::kNumReduceOps)));
}

TEST(ReduceTest, RefusedPairIsAnInvariantViolation) {
  float x[2] = {1, 2};
  const void* in[] = {x};
  void* out[] = {x};
  EXPECT_DEATH(ReduceInto(DType::kC64, ReduceOp::kMin, in, 1, out, 1, 1), "CHECK failed");
  EXPECT_DEATH(ReduceInto(DType::kBool, ReduceOp::kAvg, in, 1, out, 1, 1), "CHECK failed");
}

TEST(ReduceTest, ComplexNumbersNeedOnlyTheirPartsAlignment) {
  EXPECT_EQ(KernelAlignment(DType::kC64), alignof(float));
  EXPECT_EQ(KernelAlignment(DType::kC128), alignof(double));
  EXPECT_EQ(KernelAlignment(DType::kI16), 2u);
  EXPECT_EQ(KernelAlignment(DType::kBool), 1u);
}

TEST(ReduceTest, ZeroInputsIsAnInvariantViolation) {
  float x = 1;
  const void* in[] = {&x};
  void* out[] = {&x};
  EXPECT_DEATH(ReduceInto(DType::kF32, ReduceOp::kSum, in, 0, out, 1, 1), "CHECK failed");
}

// Sums {one, small, small} over 9 elements (vector lanes and a scalar tail).
std::vector<uint16_t> SumThree(DType dtype, uint16_t one, uint16_t small) {
  const std::vector<uint16_t> a(9, one), b(9, small);
  std::vector<uint16_t> out(9);
  const void* in[] = {a.data(), b.data(), b.data()};
  void* outs[] = {out.data()};
  ReduceInto(dtype, ReduceOp::kSum, in, 3, outs, 1, out.size());
  return out;
}

TEST(ReduceTest, HalfSumRoundsOnceAfterF32Accumulation) {
  // 1 + 2^-11 is a tie in f16 that rounds back to 1, so rounding after each add would lose both
  // small terms; accumulating in f32 keeps them and rounds 1 + 2^-10 exactly once.
  ASSERT_EQ(RefFloatToHalf(RefHalfToFloat(RefFloatToHalf(1.0f + 0x1p-11f)) + 0x1p-11f), 0x3c00);
  for (uint16_t h : SumThree(DType::kF16, FloatToHalf(1.0f), FloatToHalf(0x1p-11f))) {
    EXPECT_EQ(h, 0x3c01);  // 1 + 2^-10
  }
}

TEST(ReduceTest, BFloat16SumRoundsOnceAfterF32Accumulation) {
  for (uint16_t b : SumThree(DType::kBF16, 0x3f80, FloatToBFloat16(0x1p-8f))) {
    EXPECT_EQ(b, 0x3f81);  // 1 + 2^-7, where rounding after each add would give 1
  }
}

// NaN at input position p of n, element 5 of 33; element 9 holds +Inf/-Inf alternating across
// inputs, so only a sum of two or more turns it into NaN.
template <DType D>
void ExpectNaNPropagates(ReduceOp op, typename Ref<D>::Storage nan) {
  using S = typename Ref<D>::Storage;
  for (int n = 1; n <= 8; ++n) {
    for (int p = 0; p < n; ++p) {
      std::vector<std::vector<S>> in(n, std::vector<S>(33, Ref<D>::Store(1.5f)));
      for (int i = 0; i < n; ++i) in[i][9] = Ref<D>::Store(i % 2 ? -INFINITY : INFINITY);
      in[p][5] = nan;
      std::vector<S> out(33);
      std::vector<const void*> ins;
      for (auto& v : in) ins.push_back(v.data());
      void* outs[] = {out.data()};
      ReduceInto(D, op, ins.data(), n, outs, 1, out.size());
      EXPECT_TRUE(Ref<D>::IsQuietNaN(out[5])) << "n=" << n << " p=" << p;
      const bool inf_minus_inf = op == ReduceOp::kSum && n > 1;  // element 9
      for (size_t j = 0; j < out.size(); ++j) {
        const bool want_nan = j == 5 || (j == 9 && inf_minus_inf);
        EXPECT_EQ(Ref<D>::IsNaN(out[j]), want_nan) << "n=" << n << " p=" << p << " j=" << j;
      }
    }
  }
}

TEST(ReduceTest, FloatMinMaxAndSumPropagateQuietNaNFromAnyPosition) {
  for (ReduceOp op : {ReduceOp::kMin, ReduceOp::kMax, ReduceOp::kSum}) {
    SCOPED_TRACE(Name(op));
    // Signaling NaNs on purpose: a quiet NaN must come out.
    ExpectNaNPropagates<DType::kF32>(op, std::bit_cast<float>(0x7fa00000u));
    ExpectNaNPropagates<DType::kF64>(op, std::bit_cast<double>(0xfff4000000000000ull));
    ExpectNaNPropagates<DType::kF16>(op, uint16_t{0x7d00});
    ExpectNaNPropagates<DType::kBF16>(op, uint16_t{0xff81});
  }
}

TEST(ReduceTest, IntegerSumAndProdWrapAround) {
  const int32_t a32[] = {INT32_MAX, INT32_MAX, INT32_MIN}, b32[] = {1, 2, -1};
  const int64_t a64[] = {INT64_MAX, INT64_MAX, INT64_MIN}, b64[] = {1, 2, -1};
  int32_t o32[3];
  int64_t o64[3];
  const void* in32[] = {a32, b32};
  const void* in64[] = {a64, b64};
  void* out32[] = {o32};
  void* out64[] = {o64};
  ReduceInto(DType::kI32, ReduceOp::kSum, in32, 2, out32, 1, 3);
  EXPECT_EQ(o32[0], INT32_MIN);
  EXPECT_EQ(o32[2], INT32_MAX);
  ReduceInto(DType::kI32, ReduceOp::kProd, in32, 2, out32, 1, 3);
  EXPECT_EQ(o32[1], -2);
  EXPECT_EQ(o32[2], INT32_MIN);
  ReduceInto(DType::kI64, ReduceOp::kSum, in64, 2, out64, 1, 3);
  EXPECT_EQ(o64[0], INT64_MIN);
  EXPECT_EQ(o64[2], INT64_MAX);
  ReduceInto(DType::kI64, ReduceOp::kProd, in64, 2, out64, 1, 3);
  EXPECT_EQ(o64[1], -2);
  EXPECT_EQ(o64[2], INT64_MIN);
}

TEST(ReduceTest, IntegerAvgDividesWrappedSumTruncatingTowardZero) {
  const int32_t a32[] = {-7, 7, -1, INT32_MAX, INT32_MIN}, b32[] = {0, 0, -1, 1, INT32_MIN};
  const int32_t c32[] = {0, 0, 1, 0, 0};
  int32_t o32[5];
  const void* in32[] = {a32, b32, c32};
  void* out32[] = {o32};
  ReduceInto(DType::kI32, ReduceOp::kAvg, in32, 2, out32, 1, 5);
  EXPECT_EQ(o32[0], -3);
  EXPECT_EQ(o32[1], 3);
  EXPECT_EQ(o32[2], -1);
  EXPECT_EQ(o32[3], INT32_MIN / 2);  // INT32_MAX + 1 wrapped
  EXPECT_EQ(o32[4], 0);              // 2 * INT32_MIN wrapped
  ReduceInto(DType::kI32, ReduceOp::kAvg, in32, 3, out32, 1, 5);
  EXPECT_EQ(o32[0], -2);  // -7 / 3
  EXPECT_EQ(o32[2], 0);   // -1 / 3
  const int64_t a64[] = {-7, INT64_MAX}, b64[] = {0, 1};
  int64_t o64[2];
  const void* in64[] = {a64, b64};
  void* out64[] = {o64};
  ReduceInto(DType::kI64, ReduceOp::kAvg, in64, 2, out64, 1, 2);
  EXPECT_EQ(o64[0], -3);
  EXPECT_EQ(o64[1], INT64_MIN / 2);
}

// Reduces `in` (one array per input) with one output of the same length.
template <typename T>
std::vector<T> ReduceVectors(DType dtype, ReduceOp op, const std::vector<std::vector<T>>& in) {
  std::vector<const void*> ins;
  for (const auto& v : in) ins.push_back(v.data());
  std::vector<T> out(in[0].size());
  void* outs[] = {out.data()};
  ReduceInto(dtype, op, ins.data(), static_cast<int>(ins.size()), outs, 1, out.size());
  return out;
}

TEST(ReduceTest, SmallIntegerSumAndProdWrapAround) {
  using U8s = std::vector<uint8_t>;
  using I8s = std::vector<int8_t>;
  using I16s = std::vector<int16_t>;
  EXPECT_EQ(ReduceVectors<uint8_t>(DType::kU8, ReduceOp::kSum, {{255, 200, 3}, {1, 100, 4}}),
            (U8s{0, 44, 7}));
  EXPECT_EQ(ReduceVectors<uint8_t>(DType::kU8, ReduceOp::kProd, {{16, 255, 3}, {16, 255, 4}}),
            (U8s{0, 1, 12}));
  EXPECT_EQ(ReduceVectors<int8_t>(DType::kI8, ReduceOp::kSum, {{127, -128, -3}, {1, -1, 4}}),
            (I8s{-128, 127, 1}));
  EXPECT_EQ(ReduceVectors<int8_t>(DType::kI8, ReduceOp::kProd, {{-128, 64, -3}, {-1, 2, 4}}),
            (I8s{-128, -128, -12}));
  EXPECT_EQ(ReduceVectors<int16_t>(DType::kI16, ReduceOp::kSum, {{32767, -32768}, {1, -1}}),
            (I16s{-32768, 32767}));
  // (-1) * (-1) as unsigned 16-bit values promoted to int would overflow int (UB): 1 it is.
  EXPECT_EQ(
      ReduceVectors<int16_t>(DType::kI16, ReduceOp::kProd, {{-1, -32768, 300}, {-1, -1, 300}}),
      (I16s{1, -32768, 24464}));  // 90000 - 65536
}

TEST(ReduceTest, SmallIntegerMinMaxCompareAsTheirSignedness) {
  using U8s = std::vector<uint8_t>;
  using I8s = std::vector<int8_t>;
  EXPECT_EQ(ReduceVectors<uint8_t>(DType::kU8, ReduceOp::kMin, {{0, 255, 128}, {1, 254, 127}}),
            (U8s{0, 254, 127}));
  EXPECT_EQ(ReduceVectors<int8_t>(DType::kI8, ReduceOp::kMax, {{-1, -128, 5}, {-2, 127, 5}}),
            (I8s{-1, 127, 5}));
}

TEST(ReduceTest, SmallIntegerAvgDividesWrappedSumTruncatingTowardZero) {
  using U8s = std::vector<uint8_t>;
  using I8s = std::vector<int8_t>;
  using I16s = std::vector<int16_t>;
  // 127 + 1 wraps to -128, -128 - 1 to 127; then / 2 toward zero.
  EXPECT_EQ(ReduceVectors<int8_t>(DType::kI8, ReduceOp::kAvg, {{-7, 127, -128, 7}, {0, 1, -1, 0}}),
            (I8s{-3, -64, 63, 3}));
  EXPECT_EQ(ReduceVectors<uint8_t>(DType::kU8, ReduceOp::kAvg, {{255, 7, 200}, {1, 0, 100}}),
            (U8s{0, 3, 22}));  // 256 wraps to 0; 300 to 44
  // 3 * 32767 wraps to 32765; -1 / 3 is 0.
  EXPECT_EQ(ReduceVectors<int16_t>(DType::kI16, ReduceOp::kAvg,
                                   {{-7, 32767, -1}, {0, 32767, 0}, {0, 32767, 0}}),
            (I16s{-2, 10921, 0}));
}

TEST(ReduceTest, BoolReadsAnyNonzeroByteAsTrueAndWritesZeroOrOne) {
  const std::vector<std::vector<uint8_t>> in = {{0, 0, 2, 0x80, 0xff, 1}, {0, 3, 0, 0x40, 0xff, 1}};
  using Bytes = std::vector<uint8_t>;
  EXPECT_EQ(ReduceVectors<uint8_t>(DType::kBool, ReduceOp::kSum, in), (Bytes{0, 1, 1, 1, 1, 1}));
  EXPECT_EQ(ReduceVectors<uint8_t>(DType::kBool, ReduceOp::kMax, in), (Bytes{0, 1, 1, 1, 1, 1}));
  EXPECT_EQ(ReduceVectors<uint8_t>(DType::kBool, ReduceOp::kProd, in), (Bytes{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(ReduceVectors<uint8_t>(DType::kBool, ReduceOp::kMin, in), (Bytes{0, 0, 0, 1, 1, 1}));
  // One input: the bytes are normalized too.
  EXPECT_EQ(ReduceVectors<uint8_t>(DType::kBool, ReduceOp::kSum, {{0, 2, 0xff, 1}}),
            (Bytes{0, 1, 1, 1}));
}

TEST(ReduceTest, ComplexSumAndAvgActOnEachPart) {
  using C64 = std::complex<float>;
  using C128 = std::complex<double>;
  EXPECT_EQ(
      ReduceVectors<C64>(DType::kC64, ReduceOp::kSum, {{{1, -3}, {2.5f, 7}}, {{2, 4}, {0.5f, -1}}}),
      (std::vector<C64>{{3, 1}, {3, 6}}));
  EXPECT_EQ(
      ReduceVectors<C64>(DType::kC64, ReduceOp::kAvg, {{{1, -3}, {2.5f, 7}}, {{2, 4}, {0.5f, -1}}}),
      (std::vector<C64>{{1.5f, 0.5f}, {1.5f, 3}}));
  EXPECT_EQ(ReduceVectors<C128>(DType::kC128, ReduceOp::kAvg, {{{1, -3}}, {{2, 4}}, {{0, 2}}}),
            (std::vector<C128>{{1, 1}}));
  // Each part is divided and rounded alone.
  EXPECT_EQ(ReduceVectors<C128>(DType::kC128, ReduceOp::kAvg, {{{1, 1}}, {{0, 0}}, {{0, 0}}}),
            (std::vector<C128>{{1.0 / 3, 1.0 / 3}}));
}

TEST(ReduceTest, DivideInPlaceTruncatesSmallIntegersAndDividesBothComplexParts) {
  std::vector<int8_t> i8{-7, 127, -128};
  DivideInPlace(DType::kI8, i8.data(), i8.size(), 2);
  EXPECT_EQ(i8, (std::vector<int8_t>{-3, 63, -64}));
  std::vector<uint8_t> u8{255, 7};
  DivideInPlace(DType::kU8, u8.data(), u8.size(), 4);
  EXPECT_EQ(u8, (std::vector<uint8_t>{63, 1}));
  std::vector<int16_t> i16{-32768, 5};
  DivideInPlace(DType::kI16, i16.data(), i16.size(), 3);
  EXPECT_EQ(i16, (std::vector<int16_t>{-10922, 1}));
  std::vector<std::complex<float>> c64{{3, -6}, {1, 1}};
  DivideInPlace(DType::kC64, c64.data(), c64.size(), 3);
  EXPECT_EQ(c64, (std::vector<std::complex<float>>{{1, -2}, {1.0f / 3, 1.0f / 3}}));
  std::vector<std::complex<double>> c128{{65536, 1}};
  DivideInPlace(DType::kC128, c128.data(), c128.size(), 65536);
  EXPECT_EQ(c128, (std::vector<std::complex<double>>{{1, 1.0 / 65536}}));
}

TEST(ReduceTest, ZeroCountTouchesNothing) {
  const void* in[] = {nullptr, nullptr};
  void* out[] = {nullptr};
  ReduceInto(DType::kF16, ReduceOp::kSum, in, 2, out, 1, 0);
}

TEST(HalfTest, HalfToFloatMatchesFloat16TypeForAllBitPatterns) {
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    const float got = HalfToFloat(static_cast<uint16_t>(h)), want = RefHalfToFloat(h);
    if (HalfIsNaN(h)) {
      ASSERT_TRUE(std::isnan(got)) << h;
      ASSERT_TRUE(std::bit_cast<uint32_t>(got) & 0x00400000u) << "not quiet: " << h;
    } else {
      ASSERT_EQ(std::bit_cast<uint32_t>(got), std::bit_cast<uint32_t>(want)) << h;
    }
  }
}

TEST(HalfTest, HalfRoundTripIsIdentityAndNaNStaysQuietNaN) {
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    const uint16_t back = FloatToHalf(HalfToFloat(static_cast<uint16_t>(h)));
    if (HalfIsNaN(h)) {
      ASSERT_TRUE(HalfIsNaN(back) && (back & 0x0200u)) << h;
    } else {
      ASSERT_EQ(back, h);
    }
  }
}

TEST(HalfTest, FloatToHalfMatchesFloat16TypeAroundEveryRoundingBoundary) {
  std::vector<float> probes;
  for (uint32_t h = 0; h < 0x7c00; ++h) {  // each positive finite half and its successor
    const double lo = RefHalfToFloat(h);
    const double hi = h == 0x7bff ? 65536.0 : RefHalfToFloat(h + 1);
    const float mid = static_cast<float>((lo + hi) / 2);  // exact in f32
    probes.insert(probes.end(), {static_cast<float>(lo), mid, std::nextafter(mid, 0.0f),
                                 std::nextafter(mid, INFINITY)});
  }
  std::mt19937_64 rng(1);
  for (int i = 0; i < 1'000'000; ++i) probes.push_back(std::bit_cast<float>(uint32_t(rng())));
  for (float f : {1e-40f, 1e-45f, 1e30f, INFINITY, std::numeric_limits<float>::max()}) {
    probes.push_back(f);
  }
  for (float p : probes) {
    for (float f : {p, -p}) {
      if (std::isnan(f)) continue;
      ASSERT_EQ(FloatToHalf(f), RefFloatToHalf(f)) << std::hexfloat << f;
    }
  }
}

TEST(HalfTest, FloatToHalfRoundsTiesToEvenOverflowsToInfAndMakesSubnormals) {
  EXPECT_EQ(FloatToHalf(1.0f + 0x1p-11f), 0x3c00);      // tie, even is down
  EXPECT_EQ(FloatToHalf(1.0f + 3 * 0x1p-11f), 0x3c02);  // tie, even is up
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(FloatToHalf(std::nextafter(65520.0f, 0.0f)), 0x7bff);
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7c00);  // tie between max half and 2^16: Inf
  EXPECT_EQ(FloatToHalf(-1e10f), 0xfc00);
  EXPECT_EQ(FloatToHalf(0x1p-24f), 0x0001);
  EXPECT_EQ(FloatToHalf(0x1p-25f), 0x0000);  // tie, even is zero
  EXPECT_EQ(FloatToHalf(3 * 0x1p-25f), 0x0002);
  EXPECT_EQ(FloatToHalf(0x1p-14f - 0x1p-25f), 0x0400);  // rounds up into the normals
  EXPECT_EQ(FloatToHalf(-1e-40f), 0x8000);              // f32 subnormal -> signed zero
  const uint16_t nan = FloatToHalf(std::bit_cast<float>(0x7f800001u));  // signaling
  EXPECT_TRUE(HalfIsNaN(nan) && (nan & 0x0200u));
}

TEST(BFloat16Test, RoundTripIsIdentityAndNaNStaysQuietNaN) {
  for (uint32_t b = 0; b <= 0xffff; ++b) {
    const float f = BFloat16ToFloat(static_cast<uint16_t>(b));
    const uint16_t back = FloatToBFloat16(f);
    if (BFloat16IsNaN(b)) {
      ASSERT_TRUE(std::isnan(f) && (std::bit_cast<uint32_t>(f) & 0x00400000u)) << b;
      ASSERT_TRUE(BFloat16IsNaN(back) && (back & 0x0040u)) << b;
    } else {
      ASSERT_EQ(std::bit_cast<uint32_t>(f), b << 16);
      ASSERT_EQ(back, b);
    }
  }
}

TEST(BFloat16Test, FloatToBFloat16MatchesNearestValueSearch) {
  std::mt19937_64 rng(2);
  for (int i = 0; i < 2'000'000; ++i) {
    // Half the probes sit on or next to a midpoint (low 16 bits 0x8000 +- 1).
    uint32_t u = static_cast<uint32_t>(rng());
    if (i % 2) u = (u & 0xffff0000u) | (0x7fffu + static_cast<uint32_t>(rng() % 3));
    const float f = std::bit_cast<float>(u);
    if (std::isnan(f)) continue;
    ASSERT_EQ(FloatToBFloat16(f), RefFloatToBFloat16(f)) << std::hex << u;
  }
}

TEST(BFloat16Test, FloatToBFloat16RoundsTiesToEvenOverflowsToInfAndKeepsSubnormals) {
  EXPECT_EQ(FloatToBFloat16(std::bit_cast<float>(0x3f808000u)), 0x3f80);  // tie, down to even
  EXPECT_EQ(FloatToBFloat16(std::bit_cast<float>(0x3f818000u)), 0x3f82);  // tie, up to even
  EXPECT_EQ(FloatToBFloat16(std::bit_cast<float>(0x7f7f8000u)), 0x7f80);  // tie past max: Inf
  EXPECT_EQ(FloatToBFloat16(std::numeric_limits<float>::max()), 0x7f80);
  EXPECT_EQ(FloatToBFloat16(std::bit_cast<float>(0x80008000u)), 0x8000);  // subnormal tie
  EXPECT_EQ(FloatToBFloat16(std::bit_cast<float>(0x00018000u)), 0x0002);
  const uint16_t nan = FloatToBFloat16(std::bit_cast<float>(0xff800001u));  // payload in low bits
  EXPECT_TRUE(BFloat16IsNaN(nan) && (nan & 0x0040u) && (nan & 0x8000u));
}

}  // namespace
}  // namespace outrider::agent
