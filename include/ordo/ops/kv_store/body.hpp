/// kv_store phases shared by the GPU kernel and the CPU executor (ORDO_HD). Every stored value is
/// computed alone from its row: its block's amax (a max, exact in any order), the block's
/// power-of-two scale (exact integer exponent arithmetic, no libm), the E4M3 round trip of
/// x / scale (exact division by a power of two, then the bit-exact RNE encoder) times the scale,
/// then the F16 RNE encoder. No step rounds except the two encoders, so the stored bits equal the
/// double reference's (ref::fp8_kv_roundtrip, then ref::round_to_f16) exactly.
#pragma once
#include <cstdint>

#include "ordo/gpu/portability.hpp"
#include "ordo/numeric/conversions.hpp"
#include "ordo/numeric/pow2.hpp"
#include "ordo/ops/kv_store/problem.hpp"

namespace ordo::ops::kv_store {

ORDO_HD ORDO_FORCEINLINE const float* row_of(const problem& p, int i) { return p.kv + std::size_t(i) * p.kv_stride; }

/// The ring row position first_position + i lands in.
ORDO_HD ORDO_FORCEINLINE std::uint16_t* slot_of(const problem& p, int i) {
  const std::int64_t slot = (p.first_position + i) % p.ring_rows;
  return p.ring + std::size_t(slot) * p.ring_stride;
}

/// max(|x|) over block [b0, b0 + n), floored at amax_floor.
ORDO_HD ORDO_FORCEINLINE float block_amax(const float* x, int b0, int n) {
  float m = amax_floor;
  for (int e = b0; e < b0 + n; ++e) {
    const float a = x[e] < 0.0f ? -x[e] : x[e];
    m = a > m ? a : m;
  }
  return m;
}

/// 2^ceil(log2(amax / 448)) exactly: with c = ceil(log2 amax), the
/// exponent is c − 9 when 448·2^(c−9) >= amax (both sides exact floats) and c − 8 otherwise
/// (448·2^(c−8) > 2^c >= amax, and 448·2^(c−10) < 2^(c−1) < amax rules out anything lower).
ORDO_HD ORDO_FORCEINLINE float block_scale(float amax) {
  const int c = numeric::ceil_log2(amax);
  return e4m3_max * numeric::pow2_f32(c - 9) >= amax ? numeric::pow2_f32(c - 9) : numeric::pow2_f32(c - 8);
}

/// The E4M3 round trip of x in a block of scale s (|x / s| <= 448 by construction; the encoder
/// saturates anyway, which is the reference's clamp).
ORDO_HD ORDO_FORCEINLINE float fp8_roundtrip(float x, float s) {
  return numeric::e4m3_to_f32(numeric::f32_to_e4m3(x / s)) * s;
}

/// The F16 bits row i stores for dim e.
ORDO_HD ORDO_FORCEINLINE std::uint16_t stored(const problem& p, int i, int e) {
  const float* x = row_of(p, i);
  if (e >= p.n_rope_free) return numeric::f32_to_f16(x[e]);
  const int b0 = e - e % fp8_block;
  const int n = b0 + fp8_block < p.n_rope_free ? fp8_block : p.n_rope_free - b0;
  return numeric::f32_to_f16(fp8_roundtrip(x[e], block_scale(block_amax(x, b0, n))));
}

/// Writes dims first, first + step, … of row i into its ring slot.
ORDO_HD ORDO_FORCEINLINE void write_row(const problem& p, int i, int first, int step) {
  std::uint16_t* out = slot_of(p, i);
#pragma unroll 1
  for (int e = first; e < p.head_dim; e += step) out[e] = stored(p, i, e);
}

}  // namespace ordo::ops::kv_store
