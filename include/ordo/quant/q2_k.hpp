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

namespace ordo::quant {

struct q2_k {
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

  /// The 256 2-bit codes (0..3) in element order.
  static ORDO_HD void unpack(const block& b, std::int8_t* out) {
    for (int n = 0; n < 2; ++n)
      for (int s = 0; s < 4; ++s)
        for (int p = 0; p < 2; ++p)
          for (int l = 0; l < 16; ++l)
            out[128 * n + 32 * s + 16 * p + l] =
                static_cast<std::int8_t>((b.qs[32 * n + 16 * p + l] >> (2 * s)) & 3);
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

  struct int_parts {
    std::int32_t sumi;
    std::int32_t summ;
  };
  static ORDO_HD int_parts dot_int(const block& w, const activation::block& x) {
    std::int8_t v[256];
    unpack(w, v);
    int_parts p{0, 0};
    for (int j = 0; j < 16; ++j) {
      p.sumi += (w.scales[j] & 0x0f) * dot_i8(v + 16 * j, x.qs + 16 * j, 16);
      p.summ += (w.scales[j] >> 4) * std::int32_t{x.bsums[j]};
    }
    return p;
  }
  static ORDO_HD float dot_scale(const block& w, float x_d, int_parts p) {
    const float a = numeric::f16_to_f32(w.d) * x_d;
    const float b = numeric::f16_to_f32(w.dmin) * x_d;
    // One fma, so nothing is left for a compiler to contract: the tail has the same bits whether or
    // not the TU allows contraction.
    return fmaf(a, static_cast<float>(p.sumi), -(b * static_cast<float>(p.summ)));
  }
  static ORDO_HD float dot_block(const block* w, const activation::block& x) {
    return dot_scale(*w, x.d, dot_int(*w, x));
  }
};

}  // namespace ordo::quant
