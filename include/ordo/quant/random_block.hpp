/// Deterministic random blocks of every weight format, for synthetic models and property tests.
/// Host-only. The generator is our own splitmix64 and every draw is integer arithmetic or an exact
/// float operation, so the same seed gives the same bytes on every compiler and platform (no
/// std::*_distribution, whose algorithms are implementation-defined).
///
/// `random_block<F>(rng, scale)` returns a valid block whose dequantized values lie within about
/// ±scale (scale > 0, normal, well inside f16 range for the f16-scaled formats):
///   f32        scale·u, u uniform on the 2^-23 grid of [-1, 1)
///   f16, bf16  that value rounded (RNE) to the format
///   q8_0       d = f16(scale/127 · (0.5 + u01/2)), codes uniform in [-127, 127]
///   mxfp4      e = 127 + floor(log2 scale) - 3 - {0 or 1}, clamped to [1, 254], so the largest
///              code (±12 · 2^(e-128)) is at most 0.75·scale; all 16 nibble codes uniform
///   q4_k       d = f16(scale/945 · (0.5 + u01/2)), dmin = f16(scale/126 · u01); all 12 scale bytes,
///              so every 6-bit scale and min, and all codes uniform
///   q2_k       d = f16(scale/45 · (0.5 + u01/2)), dmin = f16(scale/30 · u01); scale bytes and codes
///              uniform
///   iq2_xxs    d = f16(scale/166.625 · (0.5 + u01/2)); all qs words uniform (grid indices, signs
///              and 4-bit scales)
/// where u01 is uniform on the 2^-24 grid of [0, 1).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ordo/numeric/conversions.hpp"
#include "ordo/quant/formats.hpp"

namespace ordo::quant {

/// splitmix64 (Steele, Lea, Flood 2014): small, fast, and good enough for test data.
struct splitmix64 {
  std::uint64_t state;
  constexpr std::uint64_t operator()() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};

/// Uniform on the 2^-24 grid of [0, 1) (exact float).
template <class Rng>
constexpr float uniform01(Rng& rng) {
  return static_cast<float>(rng() >> 40) * 0x1p-24f;
}
/// Uniform on the 2^-23 grid of [-1, 1) (exact float).
template <class Rng>
constexpr float uniform_pm1(Rng& rng) {
  return static_cast<float>(static_cast<std::int32_t>(rng() >> 40) - (1 << 23)) * 0x1p-23f;
}

namespace detail {
template <class Rng>
void random_bytes(Rng& rng, void* dst, std::size_t n) {
  auto* p = static_cast<unsigned char*>(dst);
  for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<unsigned char>(rng() >> 56);
}
/// floor(log2 x) for a positive normal float, from its exponent bits.
inline int floor_log2(float x) { return static_cast<int>((__builtin_bit_cast(std::uint32_t, x) >> 23) & 0xffu) - 127; }
}  // namespace detail

template <quant_format F, class Rng>
typename F::block random_block(Rng& rng, float scale) {
  typename F::block b{};
  const auto half_to_one = [&] { return 0.5f + 0.5f * uniform01(rng); };
  if constexpr (std::is_same_v<F, f32>) {
    b.v = scale * uniform_pm1(rng);
  } else if constexpr (std::is_same_v<F, f16>) {
    b.bits = numeric::f32_to_f16(scale * uniform_pm1(rng));
  } else if constexpr (std::is_same_v<F, bf16>) {
    b.bits = numeric::f32_to_bf16(scale * uniform_pm1(rng));
  } else if constexpr (std::is_same_v<F, q8_0>) {
    b.d = numeric::f32_to_f16(scale / 127.0f * half_to_one());
    for (auto& q : b.qs) q = static_cast<std::int8_t>(static_cast<int>(rng() % 255u) - 127);
  } else if constexpr (std::is_same_v<F, mxfp4>) {
    int e = 127 + detail::floor_log2(scale) - 3 - static_cast<int>(rng() & 1u);
    e = e < 1 ? 1 : (e > 254 ? 254 : e);
    b.e = static_cast<std::uint8_t>(e);
    detail::random_bytes(rng, b.qs, sizeof b.qs);
  } else if constexpr (std::is_same_v<F, q4_k>) {
    b.d = numeric::f32_to_f16(scale / 945.0f * half_to_one());
    b.dmin = numeric::f32_to_f16(scale / 126.0f * uniform01(rng));
    detail::random_bytes(rng, b.scales, sizeof b.scales);
    detail::random_bytes(rng, b.qs, sizeof b.qs);
  } else if constexpr (std::is_same_v<F, q2_k>) {
    b.d = numeric::f32_to_f16(scale / 45.0f * half_to_one());
    b.dmin = numeric::f32_to_f16(scale / 30.0f * uniform01(rng));
    detail::random_bytes(rng, b.scales, sizeof b.scales);
    detail::random_bytes(rng, b.qs, sizeof b.qs);
  } else if constexpr (std::is_same_v<F, iq2_xxs>) {
    b.d = numeric::f32_to_f16(scale / 166.625f * half_to_one());
    for (auto& q : b.qs) q = static_cast<std::uint16_t>(rng() >> 48);
  } else {
    static_assert(sizeof(F) == 0, "random_block: no generator for this format");
  }
  return b;
}

}  // namespace ordo::quant
