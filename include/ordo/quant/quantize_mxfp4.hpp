/// The MXFP4 weight quantizer (converters from float checkpoints, synthetic models): byte-identical
/// to ggml's reference quantize_row_mxfp4_ref. Host-only, because the shared exponent comes from
/// libm's log2f exactly as ggml computes it (floorf(log2f(amax))), and log2f's last-bit behaviour
/// just below a power of two is the C library's; using the same glibc as the oracle keeps the bytes
/// equal.
///
/// Per block of 32:
///   amax = max |x_i|
///   e    = amax > 0 ? floorf(log2f(amax)) - 2 + 127 : 0   (so 6·2^(e-127) >= amax: no clipping
///                                                          beyond the largest code, 6)
///   d    = e8m0_to_f32_half(e) = 2^(e-128)
///   code_i = the nibble n minimising |kvalue(n)·d - x_i| (float), the lowest n on ties
///   qs[j]  = code_j | code_{j+16} << 4
/// amax below 2^-125 (where ggml's float → uint8 cast of a negative exponent is undefined) gets e = 0.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "ordo/numeric/conversions.hpp"
#include "ordo/quant/mxfp4.hpp"

namespace ordo::quant {

inline void quantize_mxfp4_block(const float* x, mxfp4::block& out) {
  float amax = 0.0f;
  for (int i = 0; i < mxfp4::block_elems; ++i) amax = std::fabs(x[i]) > amax ? std::fabs(x[i]) : amax;
  const float e = amax > 0.0f ? std::floor(std::log2(amax)) - 2.0f + 127.0f : 0.0f;
  out.e = static_cast<std::uint8_t>(e < 0.0f ? 0.0f : e);
  const float d = numeric::e8m0_to_f32_half(out.e);
  const auto best = [d](float v) {
    int best_n = 0;
    float best_err = std::fabs(static_cast<float>(mxfp4::kvalue(0)) * d - v);
    for (int n = 1; n < 16; ++n) {
      const float err = std::fabs(static_cast<float>(mxfp4::kvalue(static_cast<std::uint8_t>(n))) * d - v);
      if (err < best_err) {
        best_n = n;
        best_err = err;
      }
    }
    return best_n;
  };
  for (int j = 0; j < 16; ++j) out.qs[j] = static_cast<std::uint8_t>(best(x[j]) | best(x[j + 16]) << 4);
}

/// Quantizes a row of `n` floats (`n` a multiple of 32) into n/32 blocks.
inline void quantize_mxfp4_row(const float* x, mxfp4::block* out, std::size_t n) {
  for (std::size_t b = 0; b < n / mxfp4::block_elems; ++b) quantize_mxfp4_block(x + b * mxfp4::block_elems, out[b]);
}

}  // namespace ordo::quant
