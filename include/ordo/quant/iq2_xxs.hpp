/// `iq2_xxs` weights (ggml type 16, block_iq2_xxs): 256 elements in 66 bytes, {f16 d; u16 qs[32]}
/// (ds4-model §10.5). Sub-block ib (32 elements) is two little-endian u32 words: a0 = qs[4ib] |
/// qs[4ib+1] << 16 holds four grid indices (byte l for elements 8l..8l+7), a1 = qs[4ib+2] |
/// qs[4ib+3] << 16 holds four 7-bit sign indices (bits 7l..7l+6) and the scale ls = a1 >> 28.
/// Element 8l+j is grid[a0.byte l].byte j, negated when bit j of iq2_signs(sign index l) is set.
/// Dequant matches ggml's dequantize_row_iq2_xxs: db = (d·(0.5 + ls))·0.25, y = (db·grid)·(±1).
///
/// Dot against a `q8_k` activation block (ggml's scalar vec_dot_iq2_xxs_q8_K, ds4-model §12):
///   isum_ib = Σ_{k<32} v_{32ib+k}·x.qs[32ib+k]   (v = ±grid byte, int32)
///   sumi    = Σ_ib (2·ls_ib + 1)·isum_ib         (int32; |sumi| < 2^26)
///   dot     = ((f16(d)·x.d)·(float)sumi)·0.125f  (IEEE ops in this order; (2ls+1)/8 = (0.5+ls)/4)
#pragma once

#include <cstdint>
#include <string_view>

#include "ordo/gpu/portability.hpp"
#include "ordo/numeric/conversions.hpp"
#include "ordo/quant/int_dot.hpp"
#include "ordo/quant/iq2_xxs_grid.hpp"
#include "ordo/quant/q8_k.hpp"
#include "ordo/quant/random_draws.hpp"

namespace ordo::quant {

struct iq2_xxs : integer_dot<iq2_xxs> {  // dot_int, dot_block: int_dot.hpp
  static constexpr std::string_view name = "iq2_xxs";
  static constexpr std::uint32_t ggml_type = 16;
  static constexpr int block_elems = 256;
  static constexpr int block_bytes = 66;
  struct block {
    std::uint16_t d;  // f16
    std::uint16_t qs[32];
  };
  static_assert(sizeof(block) == block_bytes);

  /// Grid-index word (a0) and sign/scale word (a1) of sub-block ib.
  static ORDO_HD constexpr std::uint32_t index_word(const block& b, int ib) {
    return std::uint32_t{b.qs[4 * ib]} | (std::uint32_t{b.qs[4 * ib + 1]} << 16);
  }
  static ORDO_HD constexpr std::uint32_t sign_word(const block& b, int ib) {
    return std::uint32_t{b.qs[4 * ib + 2]} | (std::uint32_t{b.qs[4 * ib + 3]} << 16);
  }
  /// 4-bit scale of sub-block ib.
  static ORDO_HD constexpr int scale(const block& b, int ib) { return static_cast<int>(sign_word(b, ib) >> 28); }

  /// The 32 signed grid values (±8, ±25, ±43) of chunk ib = sub-block ib (0..7).
  static ORDO_HD void unpack_chunk(const block& b, int ib, std::int8_t* out) {
    const std::uint32_t a0 = index_word(b, ib), a1 = sign_word(b, ib);
    for (int l = 0; l < 4; ++l) {
      const std::uint64_t g = iq2xxs_grid_at(static_cast<int>((a0 >> (8 * l)) & 0xffu));
      const std::uint8_t signs = iq2_signs((a1 >> (7 * l)) & 127u);
      for (int j = 0; j < 8; ++j) {
        const int v = static_cast<int>((g >> (8 * j)) & 0xffu);
        out[8 * l + j] = static_cast<std::int8_t>((signs >> j) & 1u ? -v : v);
      }
    }
  }
  /// The 256 signed grid values in element order.
  static ORDO_HD void unpack(const block& b, std::int8_t* out) {
    for (int ib = 0; ib < 8; ++ib) unpack_chunk(b, ib, out + 32 * ib);
  }

  static ORDO_HD void dequant(const block& b, float* out) {
    const float d = numeric::f16_to_f32(b.d);
    for (int ib = 0; ib < 8; ++ib) {
      const std::uint32_t a0 = index_word(b, ib), a1 = sign_word(b, ib);
      const float db = (d * (0.5f + static_cast<float>(a1 >> 28))) * 0.25f;
      for (int l = 0; l < 4; ++l) {
        const std::uint64_t g = iq2xxs_grid_at(static_cast<int>((a0 >> (8 * l)) & 0xffu));
        const std::uint8_t signs = iq2_signs((a1 >> (7 * l)) & 127u);
        for (int j = 0; j < 8; ++j) {
          const float v = db * static_cast<float>((g >> (8 * j)) & 0xffu);
          out[32 * ib + 8 * l + j] = (signs >> j) & 1u ? -v : v;
        }
      }
    }
  }

  using activation = q8_k;
  static constexpr int dot_elems = 256;

  using int_sum = std::int32_t;
  /// The integer part splits into 8 chunks (sub-blocks of 32); any split of the chunks among lanes,
  /// summed in any order, gives the same int_sum as dot_int.
  static constexpr int int_chunks = 8;
  static ORDO_HD int_sum dot_int_chunk(const block& w, const activation::block& x, int ib) {
    std::int8_t v[32];
    unpack_chunk(w, ib, v);
    return (2 * scale(w, ib) + 1) * dot_i8(v, x.qs + 32 * ib, 32);
  }
  /// widen: the f16 scale's widening (numeric::f16_to_f32, or one with its bits).
  template <class Widen = numeric::f16_widening>
  static ORDO_HD float dot_scale(const block& w, float x_d, std::int32_t sumi, Widen widen = {}) {
    const float a = widen(w.d) * x_d;
    return (a * static_cast<float>(sumi)) * 0.125f;
  }

  // ---- random blocks (random_block.hpp; host-only) ----
  /// d = f16(scale/166.625 · h), h uniform on the 2^-24 grid of [0.5, 1); all qs words uniform
  /// (grid indices, signs and 4-bit scales).
  template <class Rng>
  static block random_block(Rng& rng, float scale) {
    block b{};
    b.d = numeric::f32_to_f16(scale / 166.625f * uniform_half_to_one(rng));
    for (auto& q : b.qs) q = static_cast<std::uint16_t>(rng() >> 48);
    return b;
  }
  /// random_block(rng, gain·s) has about the stddev of uniform ±s (measured; synth relies on it).
  static constexpr float random_block_gain = 2.35f;
};

}  // namespace ordo::quant
