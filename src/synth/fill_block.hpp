// The per-format block generators behind ordo/synth/random_blocks.hpp, shared by the CPU fill
// (random_blocks.cpp) and the kernel (random_blocks_gpu.cpp). Every function here is ORDO_HD and
// uses only integer arithmetic and single, exactly rounded float operations (no libm, nothing a
// compiler could contract), so the host and the device produce the same bytes.
//
// Block b draws from its own splitmix64 stream, started at mix64(stream ^ mix64(b + 1)) where
// `stream` is fill_params::stream = mix64(key ^ mix64(seed + golden)). The host computes the
// scale parameters once per fill (make_fill_params in random_blocks.cpp) from each format's
// `unit_variance` below: the variance of a value when the scale base is 1, derived in the comment
// next to each generator, so that the expected variance of a value is exactly stddev².
//
// ORDO_MUTANT_SCALE_FIELDS_RANDOM (mutation check, tests/unit/synth): scale fields become raw
// random bits and float formats ignore stddev; the statistics test must catch it for each format.
#pragma once
#include <cstdint>

#include "ordo/gpu/portability.hpp"
#include "ordo/numeric/conversions.hpp"
#include "ordo/quant/formats.hpp"
#include "ordo/synth/random_blocks.hpp"

namespace ordo::synth::detail {

/// What the host derives from a random_fill once; every block reads it.
struct fill_params {
  uint64_t stream;          // per tensor: mix64(key ^ mix64(seed + golden))
  uint64_t first_block;     // the tensor's block index of the first block written
  float amp;                // float formats: values uniform on ±amp (stddev·√3)
  float d_base;             // f16-scaled formats: d = f16(d_base·h), h uniform on [0.5, 1)
  int mxfp4_e;              // MXFP4: the lower of the two exponents a block picks from
  uint32_t mxfp4_up;        // MXFP4: a block takes mxfp4_e + 1 when its 32-bit draw is below this
};

inline constexpr uint64_t golden = 0x9e3779b97f4a7c15ull;

ORDO_HD constexpr uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// The splitmix64 stream of one block.
struct block_draws {
  uint64_t state;
  ORDO_HD block_draws(const fill_params& p, uint64_t block) : state(mix64(p.stream ^ mix64(block + 1))) {}
  ORDO_HD uint64_t next() { return mix64(state += golden); }
};

/// Uniform on the 2^-23 grid of [-1, 1) (exact float); variance 1/3.
ORDO_HD inline float pm1(uint64_t x) {
  return static_cast<float>(static_cast<int32_t>(x >> 40) - (1 << 23)) * 0x1p-23f;
}
/// Uniform on the 2^-24 grid of [0.5, 1) (exact float): the random part of a block scale, so that
/// blocks differ in scale but none is near zero. E[h²] = 7/12.
ORDO_HD inline float half_to_one(uint64_t x) {
  return static_cast<float>(static_cast<uint32_t>(x >> 41) | (1u << 23)) * 0x1p-24f;
}
/// Uniform integer in [0, n) from the top 16 bits of `lane` (bias below n/2^16).
ORDO_HD inline int below(uint32_t lane16, int n) { return static_cast<int>((lane16 * static_cast<uint32_t>(n)) >> 16); }
/// Byte / 16-bit lane i of a draw (little-endian order, by shifts: the same on every platform).
ORDO_HD inline uint8_t byte_of(uint64_t x, int i) { return static_cast<uint8_t>(x >> (8 * i)); }
ORDO_HD inline uint32_t lane16_of(uint64_t x, int i) { return static_cast<uint32_t>((x >> (16 * i)) & 0xffffu); }

template <int N>
ORDO_HD void random_bytes(block_draws& r, uint8_t (&out)[N]) {
  static_assert(N % 8 == 0);
  for (int i = 0; i < N; i += 8) {
    const uint64_t x = r.next();
    for (int k = 0; k < 8; ++k) out[i + k] = byte_of(x, k);
  }
}

/// The f16 scale d = f16(d_base·h); under the mutant, random f16 bits.
ORDO_HD inline uint16_t block_scale(const fill_params& p, block_draws& r) {
#if defined(ORDO_MUTANT_SCALE_FIELDS_RANDOM)
  return static_cast<uint16_t>(r.next());
#else
  return numeric::f32_to_f16(p.d_base * half_to_one(r.next()));
#endif
}

/// Float formats: uniform on ±amp; amp = stddev·√3 gives stddev. Under the mutant amp is 1.
ORDO_HD inline float float_value(const fill_params& p, block_draws& r) {
#if defined(ORDO_MUTANT_SCALE_FIELDS_RANDOM)
  return pm1(r.next());
#else
  return p.amp * pm1(r.next());
#endif
}

ORDO_HD inline quant::f32::block make_block(quant::f32, const fill_params& p, block_draws& r) {
  return {float_value(p, r)};
}
ORDO_HD inline quant::f16::block make_block(quant::f16, const fill_params& p, block_draws& r) {
  return {numeric::f32_to_f16(float_value(p, r))};
}
ORDO_HD inline quant::bf16::block make_block(quant::bf16, const fill_params& p, block_draws& r) {
  return {numeric::f32_to_bf16(float_value(p, r))};
}

/// Q8_0: d·q, q uniform in [-127, 127]: E[q²] = 127·128/3, so the variance is d_base²·E[h²]·E[q²].
inline constexpr double q8_0_unit_variance = 7.0 / 12.0 * (127.0 * 128.0 / 3.0);
ORDO_HD inline quant::q8_0::block make_block(quant::q8_0, const fill_params& p, block_draws& r) {
  quant::q8_0::block b{};
  b.d = block_scale(p, r);
  for (int i = 0; i < 32; i += 4) {
    const uint64_t x = r.next();
    for (int k = 0; k < 4; ++k) b.qs[i + k] = static_cast<int8_t>(below(lane16_of(x, k), 255) - 127);
  }
  return b;
}

/// K-quant sub-block scales and mins: sc uniform in [1, max_sc], m = sc + δ with δ uniform in
/// {-1, 0, 1}, one 16-bit lane of a draw per sub-block (m stays within [0, max_sc + 1]).
template <int N>
ORDO_HD void centred_scale_mins(block_draws& r, int max_sc, int (&sc)[N], int (&m)[N]) {
  static_assert(N % 4 == 0);
  for (int j = 0; j < N; j += 4) {
    const uint64_t x = r.next();
    for (int k = 0; k < 4; ++k) {
      const int c = below(lane16_of(x, k), max_sc * 3);
      sc[j + k] = 1 + c % max_sc;
      m[j + k] = sc[j + k] - 1 + c / max_sc;
    }
  }
}

/// Q2_K: sub-block j has scale sc ∈ [1, 14] and min m = sc + δ, δ ∈ {-1, 0, 1} (both uniform),
/// with dmin = f16(1.5·d): value = d·(sc·(q − 1.5) − 1.5·δ), zero mean for the uniform code q ∈
/// [0, 3]. Variance / d² = E[sc²]·E[(q − 1.5)²] + 2.25·E[δ²] = 72.5·1.25 + 1.5 = 92.125.
inline constexpr double q2_k_unit_variance = 7.0 / 12.0 * 92.125;
ORDO_HD inline quant::q2_k::block make_block(quant::q2_k, const fill_params& p, block_draws& r) {
  quant::q2_k::block b{};
  b.d = block_scale(p, r);
#if defined(ORDO_MUTANT_SCALE_FIELDS_RANDOM)
  b.dmin = static_cast<uint16_t>(r.next());
  random_bytes(r, b.scales);
#else
  b.dmin = numeric::f32_to_f16(1.5f * numeric::f16_to_f32(b.d));
  int sc[16], m[16];
  centred_scale_mins(r, 14, sc, m);
  for (int j = 0; j < 16; ++j) b.scales[j] = static_cast<uint8_t>(sc[j] | (m[j] << 4));
#endif
  random_bytes(r, b.qs);
  return b;
}

/// Q4_K: sub-block j has 6-bit scale sc ∈ [1, 62] and min m = sc + δ, δ ∈ {-1, 0, 1}, with
/// dmin = f16(7.5·d): value = d·(sc·(q − 7.5) − 7.5·δ), zero mean for the uniform code q ∈ [0, 15].
/// Variance / d² = E[sc²]·E[(q − 7.5)²] + 56.25·E[δ²] = 1312.5·21.25 + 37.5 = 27928.125.
inline constexpr double q4_k_unit_variance = 7.0 / 12.0 * 27928.125;
ORDO_HD inline quant::q4_k::block make_block(quant::q4_k, const fill_params& p, block_draws& r) {
  quant::q4_k::block b{};
  b.d = block_scale(p, r);
#if defined(ORDO_MUTANT_SCALE_FIELDS_RANDOM)
  b.dmin = static_cast<uint16_t>(r.next());
  const uint64_t x0 = r.next(), x1 = r.next();
  for (int i = 0; i < 12; ++i) b.scales[i] = byte_of(i < 8 ? x0 : x1, i % 8);
#else
  b.dmin = numeric::f32_to_f16(7.5f * numeric::f16_to_f32(b.d));
  int sc[8], m[8];
  centred_scale_mins(r, 62, sc, m);
  // The packing quant::q4_k::scale_min reads back.
  for (int j = 0; j < 4; ++j) {
    b.scales[j] = static_cast<uint8_t>(sc[j] | ((sc[j + 4] >> 4) << 6));
    b.scales[j + 4] = static_cast<uint8_t>(m[j] | ((m[j + 4] >> 4) << 6));
    b.scales[j + 8] = static_cast<uint8_t>((sc[j + 4] & 15) | ((m[j + 4] & 15) << 4));
  }
#endif
  random_bytes(r, b.qs);
  return b;
}

/// IQ2_XXS: every qs word random (grid indices, sign patterns, 4-bit scales ls); value =
/// d·(0.5 + ls)/4·g·(±1), zero mean (each sign is ±1 with probability 1/2). Variance / d² =
/// E[(0.5 + ls)²]/16·E[g²] = 85.25/16·E[g²], E[g²] over the 2048 grid bytes.
constexpr double iq2_xxs_mean_grid_square() {
  uint64_t sum = 0;
  for (uint64_t g : quant::iq2xxs_grid)
    for (int j = 0; j < 8; ++j) sum += ((g >> (8 * j)) & 0xffu) * ((g >> (8 * j)) & 0xffu);
  return static_cast<double>(sum) / (8.0 * quant::iq2xxs_grid.size());
}
inline constexpr double iq2_xxs_unit_variance = 7.0 / 12.0 * 85.25 / 16.0 * iq2_xxs_mean_grid_square();
ORDO_HD inline quant::iq2_xxs::block make_block(quant::iq2_xxs, const fill_params& p, block_draws& r) {
  quant::iq2_xxs::block b{};
  b.d = block_scale(p, r);
  for (int i = 0; i < 32; i += 4) {
    const uint64_t x = r.next();
    for (int k = 0; k < 4; ++k) b.qs[i + k] = static_cast<uint16_t>(lane16_of(x, k));
  }
  return b;
}

/// MXFP4: value = kvalue·2^(e − 128), codes uniform: E[kvalue²] = 274/8 = 34.25. A block takes
/// e = mxfp4_e or mxfp4_e + 1; the host sets the probability of the upper one so the expected
/// variance is stddev² exactly (a single power of two could miss it by a factor of 2 in stddev).
inline constexpr double mxfp4_code_variance = 34.25;
ORDO_HD inline quant::mxfp4::block make_block(quant::mxfp4, const fill_params& p, block_draws& r) {
  quant::mxfp4::block b{};
  const uint64_t x = r.next();
#if defined(ORDO_MUTANT_SCALE_FIELDS_RANDOM)
  b.e = byte_of(x, 0);
#else
  b.e = static_cast<uint8_t>(p.mxfp4_e + (static_cast<uint32_t>(x >> 32) < p.mxfp4_up ? 1 : 0));
#endif
  random_bytes(r, b.qs);  // 16 bytes: two draws
  return b;
}

/// The parameters of `f` (validated as random_fill_bytes does; host only, random_blocks.cpp).
fill_params make_fill_params(const random_fill& f);

/// Block `i` of the fill (the tensor's block p.first_block + i).
template <class F>
ORDO_HD typename F::block fill_block(const fill_params& p, uint64_t i) {
  block_draws r(p, p.first_block + i);
  return make_block(F{}, p, r);
}

}  // namespace ordo::synth::detail
