/// The draws every format's `random_block` is made of (host-only): our own splitmix64 generator
/// and exact conversions of its output to floats and bytes. Every draw is integer arithmetic or an
/// exact float operation, so the same seed gives the same bytes on every compiler and platform (no
/// std::*_distribution, whose algorithms are implementation-defined).
#pragma once

#include <cstddef>
#include <cstdint>

#include "ordo/numeric/conversions.hpp"

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
/// Uniform on the 2^-24 grid of [0.5, 1): the random part of a block scale (never near zero).
template <class Rng>
constexpr float uniform_half_to_one(Rng& rng) {
  return 0.5f + 0.5f * uniform01(rng);
}

namespace detail {
/// `n` uniform bytes, one draw each (its top byte).
template <class Rng>
void random_bytes(Rng& rng, void* dst, std::size_t n) {
  auto* p = static_cast<unsigned char*>(dst);
  for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<unsigned char>(rng() >> 56);
}
/// floor(log2 x) for a positive normal float, from its exponent bits.
inline int floor_log2(float x) { return static_cast<int>((__builtin_bit_cast(std::uint32_t, x) >> 23) & 0xffu) - 127; }
/// A K-quant block with a per-sub-block min (Q2_K, Q4_K: {f16 d, f16 dmin, scales[], qs[]}):
/// d = f16(scale/d_div · h), h uniform on the 2^-24 grid of [0.5, 1); dmin = f16(scale/m_div · u01);
/// every scale byte and code uniform. Draws in that order.
template <class Block, class Rng>
Block random_scaled_min_block(Rng& rng, float scale, float d_div, float m_div) {
  Block b{};
  b.d = numeric::f32_to_f16(scale / d_div * uniform_half_to_one(rng));
  b.dmin = numeric::f32_to_f16(scale / m_div * uniform01(rng));
  random_bytes(rng, b.scales, sizeof b.scales);
  random_bytes(rng, b.qs, sizeof b.qs);
  return b;
}
}  // namespace detail

}  // namespace ordo::quant
