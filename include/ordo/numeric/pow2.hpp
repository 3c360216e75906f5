/// Exact powers of two and binary logarithms of floats, from the exponent bits. DS4's block
/// quantizers (FP8 KV rows, the indexer's FP4 round trip) use scale = 2^ceil(log2(amax / K)); ds4
/// spells that with log2f/ceilf/exp2f, whose results differ between libms exactly when the
/// argument sits a few ulps above a power of two (log2f rounds k + tiny down to k, so the scale
/// comes out one binade too small). These functions are the exact mathematical values, identical
/// on every backend, so kernels never depend on a libm.
#pragma once

#include <cstdint>

#include "ordo/gpu/portability.hpp"

namespace ordo::numeric {

/// 2^k for k in [-149, 127], exact (subnormal powers for k < -126). Outside that range the result
/// is clamped to 0 (k < -149) or +inf (k > 127).
ORDO_HD constexpr float pow2_f32(int k) {
  if (k > 127) return __builtin_bit_cast(float, 0x7f800000u);
  if (k < -149) return 0.0f;
  if (k >= -126) return __builtin_bit_cast(float, static_cast<std::uint32_t>(k + 127) << 23);
  return __builtin_bit_cast(float, std::uint32_t{1} << (k + 149));  // subnormal power
}

/// floor(log2(|x|)) for finite x != 0, subnormals included (-149 for the smallest). Other inputs
/// give fixed values: ±0 → -150 (so pow2_f32 of it is 0), ±inf and NaN → 128.
ORDO_HD constexpr int floor_log2(float x) {
  const std::uint32_t abs = __builtin_bit_cast(std::uint32_t, x) & 0x7fffffffu;
  if (abs == 0u) return -150;
  const int exp = static_cast<int>(abs >> 23);
  if (exp == 0xff) return 128;
  if (exp != 0) return exp - 127;
  // Subnormal: the position of the highest set mantissa bit (a loop keeps it constexpr on every
  // compiler; at most 23 steps).
  int k = -126;
  for (std::uint32_t m = abs; m < 0x00800000u; m <<= 1) --k;
  return k;
}

/// ceil(log2(|x|)): the smallest k with 2^k >= |x|, for finite x != 0. Exact powers of two give
/// their own exponent; everything else the next one up. ±0 → -150, ±inf and NaN → 128.
ORDO_HD constexpr int ceil_log2(float x) {
  const std::uint32_t abs = __builtin_bit_cast(std::uint32_t, x) & 0x7fffffffu;
  const int k = floor_log2(x);
  if (abs == 0u || (abs >> 23) == 0xffu) return k;
  const bool is_power = (abs >> 23) != 0 ? (abs & 0x7fffffu) == 0 : (abs & (abs - 1u)) == 0;
  return is_power ? k : k + 1;
}

/// 2^ceil(log2(|x|)), the smallest power of two >= |x|, for finite x != 0 with |x| <= 2^127.
/// ±0 → 0; |x| > 2^127, ±inf and NaN → +inf.
ORDO_HD constexpr float pow2_ceil(float x) { return pow2_f32(ceil_log2(x)); }

}  // namespace ordo::numeric
