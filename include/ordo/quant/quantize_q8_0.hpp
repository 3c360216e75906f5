/// The Q8_0 weight quantizer (converters, synthetic models): byte-identical to ggml's reference
/// quantize_row_q8_0_ref, so a GGUF we write equals one llama.cpp's tools would write.
///
/// Per block of 32:
///   amax = max |x_i|
///   d    = amax / 127.0f;  id = d != 0 ? 1.0f / d : 0     (f32, IEEE division)
///   qs_i = round-half-away-from-zero(x_i · id)            (C roundf, here code_away: 0 when
///                                                          id overflowed to inf, as ggml on x86)
///   stored d = f32_to_f16(d)                              (RNE)
/// Note the codes use the f32 d, not the stored f16 one (as ggml does). NaN/inf inputs are not
/// supported; blocks with amax below ~127·2^-128 (id = inf) get all-zero codes, like ggml's.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ordo/gpu/portability.hpp"
#include "ordo/numeric/conversions.hpp"
#include "ordo/quant/q8_0.hpp"
#include "ordo/quant/rounding.hpp"

namespace ordo::quant {

/// Quantizes one block of 32 floats.
ORDO_HD inline void quantize_q8_0_block(const float* x, q8_0::block& out) {
  float amax = 0.0f;
  for (int i = 0; i < q8_0::block_elems; ++i) {
    const float a = x[i] < 0.0f ? -x[i] : x[i];
    amax = amax > a ? amax : a;
  }
  const float d = amax / 127.0f;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  out.d = numeric::f32_to_f16(d);
  for (int i = 0; i < q8_0::block_elems; ++i) out.qs[i] = static_cast<std::int8_t>(code_away(x[i] * id));
}

/// Quantizes a row of `n` floats (`n` a multiple of 32) into n/32 blocks.
inline void quantize_q8_0_row(const float* x, q8_0::block* out, std::size_t n) {
  for (std::size_t b = 0; b < n / q8_0::block_elems; ++b) quantize_q8_0_block(x + b * q8_0::block_elems, out[b]);
}

}  // namespace ordo::quant
