/// `q2_k` weights (ggml type 10, block_q2_K): 256 elements in 84 bytes,
/// {u8 scales[16]; u8 qs[64]; f16 d; f16 dmin} (ds4-model §10.3). Sixteen sub-blocks of 16;
/// scales[j] holds sub-block j's 4-bit scale (low nibble) and 4-bit min (high nibble). Element
/// e = 128n + 32s + 16p + l (half n, shift index s = 0..3, part p = 0..1, l = 0..15) is
/// (qs[32n + 16p + l] >> 2s) & 3 and belongs to sub-block e/16. Value = (d·sc)·q − (dmin·m), as
/// ggml's dequantize_row_q2_K computes it: dl = d·sc, ml = dmin·m, y = dl·(float)q − ml (no fma).
///
/// Dot against a `q8_k` activation block (ds4-model §12, ggml vec_dot_q2_K_q8_K):
///   sumi = Σ_j (scales[j] & 15)·Σ_{l<16} q_{16j+l}·x.qs[16j+l]   (int32)
///   summ = Σ_j (scales[j] >> 4)·x.bsums[j]                        (int32)
///   dot  = a·(float)sumi − b·(float)summ with a = f16(d)·x.d, b = f16(dmin)·x.d
/// evaluated as fmaf(a, (float)sumi, −(b·(float)summ)). |sumi| <= 15·3·128·256 < 2^21: exact.
#pragma once

#include <cmath>
#include <cstdint>
#include <string_view>

#include "ordo/gpu/portability.hpp"
#include "ordo/numeric/conversions.hpp"
#include "ordo/quant/int_dot.hpp"
#include "ordo/quant/q8_k.hpp"
#include "ordo/quant/random_draws.hpp"

namespace ordo::quant {

struct q2_k : integer_dot<q2_k> {  // dot_int, dot_block: int_dot.hpp
  static constexpr std::string_view name = "q2_k";
  static constexpr std::uint32_t ggml_type = 10;
  static constexpr int block_elems = 256;
  static constexpr int block_bytes = 84;
  struct block {
    std::uint8_t scales[16];  // low nibble scale, high nibble min, per 16 elements
    std::uint8_t qs[64];
    std::uint16_t d;     // f16
    std::uint16_t dmin;  // f16
  };
  static_assert(sizeof(block) == block_bytes);

  /// The 32 2-bit codes (0..3) of chunk c (0..7): elements 32c..32c+31, i.e. half n = c/4, shift
  /// index s = c%4, sub-blocks 2c (from qs[32n..32n+15]) and 2c+1 (from qs[32n+16..32n+31]).
  static ORDO_HD void unpack_chunk(const block& b, int c, std::int8_t* out) {
    const std::uint8_t* q = b.qs + 32 * (c / 4);
    const int shift = 2 * (c % 4);
    for (int l = 0; l < 32; ++l) out[l] = static_cast<std::int8_t>((q[l] >> shift) & 3);
  }
  /// The 256 codes in element order.
  static ORDO_HD void unpack(const block& b, std::int8_t* out) {
    for (int c = 0; c < 8; ++c) unpack_chunk(b, c, out + 32 * c);
  }

  static ORDO_HD void dequant(const block& b, float* out) {
    const float d = numeric::f16_to_f32(b.d);
    const float dmin = numeric::f16_to_f32(b.dmin);
    std::int8_t q[256];
    unpack(b, q);
    for (int j = 0; j < 16; ++j) {
      const float dl = d * static_cast<float>(b.scales[j] & 0x0f);
      const float ml = dmin * static_cast<float>(b.scales[j] >> 4);
      for (int l = 0; l < 16; ++l) out[16 * j + l] = dl * static_cast<float>(q[16 * j + l]) - ml;
    }
  }

  using activation = q8_k;
  static constexpr int dot_elems = 256;

  /// Exact integer parts of the dot (sumi, summ); additive over chunks.
  using int_sum = scaled_min_sums;
  /// The integer part splits into 8 chunks of 32 elements (two 16-element sub-blocks each); any
  /// split of the chunks among lanes, summed in any order, gives the same int_sum as dot_int.
  static constexpr int int_chunks = 8;
  static ORDO_HD int_sum dot_int_chunk(const block& w, const activation::block& x, int c) {
    std::int8_t v[32];
    unpack_chunk(w, c, v);
    const int j0 = 2 * c, j1 = 2 * c + 1;
    return {(w.scales[j0] & 0x0f) * dot_i8(v, x.qs + 16 * j0, 16) + (w.scales[j1] & 0x0f) * dot_i8(v + 16, x.qs + 16 * j1, 16),
            (w.scales[j0] >> 4) * std::int32_t{x.bsums[j0]} + (w.scales[j1] >> 4) * std::int32_t{x.bsums[j1]}};
  }
  /// widen: the f16 scales' widening (numeric::f16_to_f32, or one with its bits).
  template <class Widen = numeric::f16_widening>
  static ORDO_HD float dot_scale(const block& w, float x_d, int_sum p, Widen widen = {}) {
    const float a = widen(w.d) * x_d;
    const float b = widen(w.dmin) * x_d;
    // One fma, so nothing is left for a compiler to contract: the tail has the same bits whether or
    // not the TU allows contraction.
    return fmaf(a, static_cast<float>(p.sumi), -(b * static_cast<float>(p.summ)));
  }

  // ---- random blocks (random_block.hpp; host-only) ----
  /// d = f16(scale/45 · h), h uniform on the 2^-24 grid of [0.5, 1), dmin = f16(scale/30 · u01);
  /// scale bytes and codes uniform.
  template <class Rng>
  static block random_block(Rng& rng, float scale) {
    return detail::random_scaled_min_block<block>(rng, scale, 45.0f, 30.0f);
  }
  /// random_block(rng, gain·s) has about the stddev of uniform ±s (measured; synth relies on it).
  static constexpr float random_block_gain = 2.4f;
};

}  // namespace ordo::quant
