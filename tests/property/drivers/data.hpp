/// Order-sensitive test data (DESIGN §7): full-mantissa floats of mixed magnitude and sign, and
/// bitwise comparison. Small integers would make every order look exact.
#pragma once
#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ordo/quant/random_block.hpp"

namespace ordo::test {

/// A float with a full 23-bit mantissa, random sign, exponent in [-exp_range, exp_range].
inline float mixed_float(quant::splitmix64& rng, int exp_range = 8) {
  const std::uint64_t r = rng();
  const std::uint32_t mant = std::uint32_t(r) & 0x7fffffu;
  const int e = int((r >> 32) % std::uint64_t(2 * exp_range + 1)) - exp_range;
  const std::uint32_t bits = (std::uint32_t(r >> 63) << 31) | (std::uint32_t(127 + e) << 23) | mant;
  return std::bit_cast<float>(bits);
}

inline std::vector<float> mixed_floats(quant::splitmix64& rng, std::size_t n, int exp_range = 8) {
  std::vector<float> v(n);
  for (auto& x : v) x = mixed_float(rng, exp_range);
  return v;
}

/// 2^-24, the unit roundoff of float32 (half an ulp of 1): the oracles' bounds are in units of it.
inline constexpr double unit_roundoff = 0x1p-24;

/// Bitwise equality (NaN payloads and signed zeros included).
template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), sizeof(T) * a.size()) == 0);
}

inline bool same_bits(const float* a, const float* b, std::size_t n) { return std::memcmp(a, b, n * sizeof(float)) == 0; }

/// A NaN payload no computation produces: marks output a kernel must not write.
inline constexpr std::uint32_t out_sentinel = 0x7fc0dea1u;
/// Poison for padding and unused rows a kernel must not read (0xFF bytes: NaN in f16/bf16/f32).
inline constexpr std::byte poison{0xFF};

}  // namespace ordo::test
