/// `q8_k`: the activation format for the 256-element K-quants and IQ2_XXS, byte-compatible with
/// ggml's block_q8_K (ggml type 15, 292 bytes): {f32 d; int8 qs[256]; int16 bsums[16]}.
///
/// Quantization follows ggml's quantize_row_q8_K_ref (ggml-quants.c) exactly:
///   m      = the element with the largest |x| (first one on ties; a plain ascending scan)
///   all-zero block (max |x| == 0): d = 0, every q = 0, every bsum = 0
///   iscale = -127.0f / m
///   q_i    = min(127, code_even(iscale · x_i))   (ggml's nearest_int is RNE; a non-finite product,
///            possible only when |m| < 127/FLT_MAX makes iscale infinite, gives 0 as in ggml)
///   bsums[j] = Σ q[16j .. 16j+15]
///   d      = 1.0f / iscale
/// The sign flip (iscale is negative for a positive m) is ggml's: m itself maps to exactly -127.
/// Deviation: ggml leaves bsums unwritten for an all-zero block; we write zeros. We also clamp at
/// -128 (never reached: |iscale·x_i| <= 127·(1 + 2^-23)). A dequantized element is d·q_i.
#pragma once

#include <cstdint>
#include <string_view>

#include "ordo/gpu/portability.hpp"
#include "ordo/quant/rounding.hpp"

namespace ordo::quant {

struct q8_k {
  static constexpr std::string_view name = "q8_k";
  static constexpr std::uint32_t ggml_type = 15;
  static constexpr int block_elems = 256;
  static constexpr int block_bytes = 292;
  struct block {
    float d;
    std::int8_t qs[256];
    std::int16_t bsums[16];
  };
  static_assert(sizeof(block) == block_bytes);

  static ORDO_HD void quantize(const float* x, block& out) {
    float amax = 0.0f;
    float max = 0.0f;
    for (int i = 0; i < block_elems; ++i) {
      const float a = x[i] < 0.0f ? -x[i] : x[i];
      if (a > amax) {
        amax = a;
        max = x[i];
      }
    }
    if (amax == 0.0f) {
      out.d = 0.0f;
      for (int i = 0; i < block_elems; ++i) out.qs[i] = 0;
      for (int j = 0; j < 16; ++j) out.bsums[j] = 0;
      return;
    }
    const float iscale = -127.0f / max;
    for (int i = 0; i < block_elems; ++i) {
      int q = code_even(iscale * x[i]);
      q = q > 127 ? 127 : (q < -128 ? -128 : q);
      out.qs[i] = static_cast<std::int8_t>(q);
    }
    for (int j = 0; j < 16; ++j) {
      int sum = 0;
      for (int i = 0; i < 16; ++i) sum += out.qs[16 * j + i];
      out.bsums[j] = static_cast<std::int16_t>(sum);
    }
    out.d = 1.0f / iscale;
  }
  static ORDO_HD void dequant(const block& b, float* out) {
    for (int i = 0; i < block_elems; ++i) out[i] = b.d * static_cast<float>(b.qs[i]);
  }
};

}  // namespace ordo::quant
