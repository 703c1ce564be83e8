// Branch-free IEEE binary16 and bfloat16 <-> binary32 conversions for the reduction kernels.
// Only integer and plain float operations (no F16C, no libgcc soft-float calls) so GCC can
// vectorize them inside the reduction loops on any x86-64. Rounding is to nearest-even; every NaN
// comes out quiet. Requires the default FP environment (round-to-nearest, no FTZ/DAZ).
#pragma once

#include <bit>
#include <cstdint>

namespace outrider::agent::half {

// All-ones when `c`, else zero. Selecting with masks instead of branches keeps loops vectorizable.
inline uint32_t Mask(bool c) { return 0u - static_cast<uint32_t>(c); }
inline uint32_t Select(uint32_t mask, uint32_t if_set, uint32_t if_clear) {
  return (if_set & mask) | (if_clear & ~mask);
}

inline float HalfBitsToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  // Exponent and mantissa; int32_t because signed compares are single instructions on SSE2/AVX2.
  const int32_t em = h & 0x7fff;
  // Normal: moving the bits into place and rebiasing the exponent (15 -> 127) is exact.
  const uint32_t normal = (static_cast<uint32_t>(em) << 13) + ((127u - 15u) << 23);
  // Inf/NaN: one more rebias saturates the exponent and keeps the payload; NaNs get the quiet bit
  // so a signaling f16 NaN never escapes.
  const uint32_t special = (normal + ((127u - 15u) << 23)) | (Mask(em > 0x7c00) & 0x00400000u);
  // Subnormal and zero: mantissa * 2^-24, exact in binary32 (where these values are normal).
  const uint32_t subnormal = std::bit_cast<uint32_t>(static_cast<float>(em) * 0x1p-24f);
  uint32_t bits = Select(Mask(em >= 0x7c00), special, normal);
  bits = Select(Mask(em < 0x0400), subnormal, bits);
  return std::bit_cast<float>(bits | sign);
}

inline uint16_t FloatToHalfBits(float f) {
  const uint32_t u = std::bit_cast<uint32_t>(f);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const int32_t a = static_cast<int32_t>(u & 0x7fffffffu);  // |f|; signed compares are cheaper
  const uint32_t ua = static_cast<uint32_t>(a);
  // |f| >= 2^16 is past the rounding boundary of the largest half: Inf; NaN -> canonical quiet NaN.
  const uint32_t special = 0x7c00u | (Mask(a > 0x7f800000) & 0x0200u);
  // Normal: rebias, then round to nearest-even by adding 0xfff plus the kept lsb; a carry out of
  // the mantissa correctly bumps the exponent (up to Inf for values in [65520, 65536)).
  const uint32_t normal = (ua + ((15u - 127u) << 23) + 0xfffu + ((ua >> 13) & 1u)) >> 13;
  // |f| < 2^-14 (half subnormal or zero): adding 0.5f puts the half's ulp (2^-24) at the float's
  // last mantissa bit, so the FPU does the round-to-nearest-even; a carry yields the smallest
  // normal.
  const uint32_t subnormal = std::bit_cast<uint32_t>(std::bit_cast<float>(ua) + 0.5f) - 0x3f000000u;
  uint32_t bits = Select(Mask(a >= 0x47800000), special, normal);
  bits = Select(Mask(a < 0x38800000), subnormal, bits);
  return static_cast<uint16_t>(bits | sign);
}

inline float BFloat16BitsToFloat(uint16_t b) {
  uint32_t u = static_cast<uint32_t>(b) << 16;
  u |= Mask(static_cast<int32_t>(u & 0x7fffffffu) > 0x7f800000) & 0x00400000u;  // quiet any NaN
  return std::bit_cast<float>(u);
}

inline uint16_t FloatToBFloat16Bits(float f) {
  const uint32_t u = std::bit_cast<uint32_t>(f);
  // Same exponent range as binary32, so one integer round-to-nearest-even covers subnormals and
  // overflow to Inf. NaN must bypass it: rounding could carry a NaN payload into Inf.
  const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  const uint32_t quiet_nan = (u >> 16) | 0x0040u;
  const bool is_nan = static_cast<int32_t>(u & 0x7fffffffu) > 0x7f800000;
  return static_cast<uint16_t>(Select(Mask(is_nan), quiet_nan, rounded));
}

}  // namespace outrider::agent::half
