/// `q4_k` weights (ggml type 12, block_q4_K): 256 elements in 144 bytes,
/// {f16 d; f16 dmin; u8 scales[12]; u8 qs[128]} (ds4-model §10.4). Eight sub-blocks of 32 with a
/// 6-bit scale sc_j and 6-bit min m_j packed in `scales` (see `scale_min`). Chunk c (0..3) uses
/// qs[32c .. 32c+31]: its low nibbles are elements 64c+l (sub-block 2c), its high nibbles elements
/// 64c+32+l (sub-block 2c+1). Value = (d·sc_j)·q − (dmin·m_j), computed like ggml's
/// dequantize_row_q4_K: d1 = d·sc, m1 = dmin·m, y = d1·(float)q − m1 (no fma).
///
/// Dot against a `q8_k` activation block (x.d, x.qs, x.bsums):
///   isum_j = Σ_{l<32} q_{32j+l}·x.qs[32j+l]                 (int32 per sub-block)
///   sumi   = Σ_j sc_j·isum_j                                (int32, |sumi| < 2^25)
///   summ   = Σ_j m_j·(x.bsums[2j] + x.bsums[2j+1])          (int32)
///   dot    = (f16(d)·x.d)·(float)sumi − (f16(dmin)·x.d)·(float)summ
/// evaluated as: a = f16(d)·x.d; b = f16(dmin)·x.d; fmaf(a, (float)sumi, −(b·(float)summ))
/// (IEEE ops in that order; the int→float conversions round to nearest even above 2^24).
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

struct q4_k : integer_dot<q4_k> {  // dot_int, dot_block: int_dot.hpp
  static constexpr std::string_view name = "q4_k";
  static constexpr std::uint32_t ggml_type = 12;
  static constexpr int block_elems = 256;
  static constexpr int block_bytes = 144;
  struct block {
    std::uint16_t d;     // f16, scale of the sub-block scales
    std::uint16_t dmin;  // f16, scale of the sub-block mins
    std::uint8_t scales[12];
    std::uint8_t qs[128];
  };
  static_assert(sizeof(block) == block_bytes);

  /// 6-bit scale and min of sub-block j (0..7): j < 4 sit in the low 6 bits of scales[j] and
  /// scales[j+4]; j >= 4 take their low 4 bits from scales[j+4] and their top 2 bits from the top
  /// bits of scales[j-4] (scale) and scales[j] (min).
  static ORDO_HD constexpr void scale_min(const block& b, int j, int& sc, int& m) {
    if (j < 4) {
      sc = b.scales[j] & 63;
      m = b.scales[j + 4] & 63;
    } else {
      sc = (b.scales[j + 4] & 0x0f) | ((b.scales[j - 4] >> 6) << 4);
      m = (b.scales[j + 4] >> 4) | ((b.scales[j] >> 6) << 4);
    }
  }
  /// The 32 4-bit codes (0..15) of chunk c = sub-block c (0..7): elements 32c..32c+31.
  static ORDO_HD void unpack_chunk(const block& b, int c, std::int8_t* out) {
    const std::uint8_t* q = b.qs + 32 * (c / 2);
    const int shift = 4 * (c % 2);
    for (int l = 0; l < 32; ++l) out[l] = static_cast<std::int8_t>((q[l] >> shift) & 0x0f);
  }
  /// The 256 codes in element order.
  static ORDO_HD void unpack(const block& b, std::int8_t* out) {
    for (int c = 0; c < 8; ++c) unpack_chunk(b, c, out + 32 * c);
  }

  static ORDO_HD void dequant(const block& b, float* out) {
    const float d = numeric::f16_to_f32(b.d);
    const float dmin = numeric::f16_to_f32(b.dmin);
    for (int c = 0; c < 4; ++c) {
      int sc = 0, m = 0;
      scale_min(b, 2 * c, sc, m);
      const float d1 = d * static_cast<float>(sc), m1 = dmin * static_cast<float>(m);
      scale_min(b, 2 * c + 1, sc, m);
      const float d2 = d * static_cast<float>(sc), m2 = dmin * static_cast<float>(m);
      for (int l = 0; l < 32; ++l) out[64 * c + l] = d1 * static_cast<float>(b.qs[32 * c + l] & 0x0f) - m1;
      for (int l = 0; l < 32; ++l) out[64 * c + 32 + l] = d2 * static_cast<float>(b.qs[32 * c + l] >> 4) - m2;
    }
  }

  using activation = q8_k;
  static constexpr int dot_elems = 256;

  /// Exact integer parts of the dot (sumi, summ); additive over chunks.
  using int_sum = scaled_min_sums;
  /// The integer part splits into 8 chunks of 32 elements (chunk c = sub-block c). Any split of the
  /// chunks among lanes, summed in any order, gives the same int_sum as dot_int.
  static constexpr int int_chunks = 8;
  static ORDO_HD int_sum dot_int_chunk(const block& w, const activation::block& x, int c) {
    std::int8_t v[32];
    unpack_chunk(w, c, v);
    int sc = 0, m = 0;
    scale_min(w, c, sc, m);
    return {sc * dot_i8(v, x.qs + 32 * c, 32), m * (std::int32_t{x.bsums[2 * c]} + std::int32_t{x.bsums[2 * c + 1]})};
  }
  static ORDO_HD float dot_scale(const block& w, float x_d, int_sum p) {
    const float a = numeric::f16_to_f32(w.d) * x_d;
    const float b = numeric::f16_to_f32(w.dmin) * x_d;
    // One fma, so nothing is left for a compiler to contract: the tail has the same bits whether or
    // not the TU allows contraction.
    return fmaf(a, static_cast<float>(p.sumi), -(b * static_cast<float>(p.summ)));
  }

  // ---- random blocks (random_block.hpp; host-only) ----
  /// d = f16(scale/945 · h), h uniform on the 2^-24 grid of [0.5, 1), dmin = f16(scale/126 · u01);
  /// all 12 scale bytes, so every 6-bit scale and min, and all codes uniform.
  template <class Rng>
  static block random_block(Rng& rng, float scale) {
    return detail::random_scaled_min_block<block>(rng, scale, 945.0f, 126.0f);
  }
  /// random_block(rng, gain·s) has about the stddev of uniform ±s (measured; synth relies on it).
  static constexpr float random_block_gain = 2.7f;
};

}  // namespace ordo::quant
