/// Inputs and comparisons shared by the op-family tests: order-sensitive floats (a full 23-bit
/// mantissa, random sign, exponents over several octaves), bitwise comparison, and NaN sentinels
/// for padding that must never be read or written (DESIGN §7).
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ordo/quant/random_block.hpp"

namespace ordo::test {

/// A float with a full mantissa, random sign, exponent in [-exp_range, exp_range].
inline float mixed_float(quant::splitmix64& rng, int exp_range = 8) {
  const std::uint64_t r = rng();
  const std::uint32_t mant = std::uint32_t(r) & 0x7fffffu;
  const int e = int((r >> 32) % std::uint64_t(2 * exp_range + 1)) - exp_range;
  return std::bit_cast<float>((std::uint32_t(r >> 63) << 31) | (std::uint32_t(127 + e) << 23) | mant);
}

inline std::vector<float> mixed_floats(quant::splitmix64& rng, std::size_t n, int exp_range = 8) {
  std::vector<float> v(n);
  for (auto& x : v) x = mixed_float(rng, exp_range);
  return v;
}

/// A NaN payload no computation produces: padding that still holds it was never written.
inline constexpr std::uint32_t sentinel_bits = 0x7fc0dea1u;
inline float sentinel() { return std::bit_cast<float>(sentinel_bits); }
inline bool is_sentinel(float v) { return std::bit_cast<std::uint32_t>(v) == sentinel_bits; }

inline bool same_bits(const float* a, const float* b, std::size_t n) { return std::memcmp(a, b, n * sizeof(float)) == 0; }
inline bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && same_bits(a.data(), b.data(), a.size());
}

/// 2^-24, the unit roundoff of float32 (half an ulp of 1).
inline constexpr double unit_roundoff = 0x1p-24;

}  // namespace ordo::test
