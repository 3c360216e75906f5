/// `q8_32`: the activation format for Q8_0 and MXFP4 weights. 32 floats become a float scale and
/// 32 int8 codes so the weight·activation product is an exact int32 dot (DESIGN §3).
///
/// Quantization (fixed, ORDO_HD, the same bits everywhere):
///   amax = max |x_i| (a plain running max in ascending order; NaN inputs are not supported)
///   d    = amax / 127.0f                 (IEEE division)
///   id   = amax != 0 ? 127.0f / amax : 0 (IEEE division)
///   q_i  = clamp(code_even(x_i · id), -127, 127)  (round half to even; 0 if x_i·id is not finite,
///                                                  which needs amax < 127/FLT_MAX, see rounding.hpp)
/// This is not byte-for-byte ggml's quantize_row_q8_0 (which stores d as f16, uses id = 1/d and
/// rounds half away from zero): the scale stays f32 so activations lose no precision to f16, and
/// 127/amax maps the largest element exactly to ±127. A dequantized element is d·q_i.
#pragma once

#include <cstdint>
#include <string_view>

#include "ordo/gpu/portability.hpp"
#include "ordo/quant/rounding.hpp"

namespace ordo::quant {

struct q8_32 {
  static constexpr std::string_view name = "q8_32";
  static constexpr int block_elems = 32;
  static constexpr int block_bytes = 36;
  struct block {
    float d;
    std::int8_t qs[32];
  };
  static_assert(sizeof(block) == block_bytes);

  /// The 32 inputs are read into registers first: the reads are in flight together, and none
  /// waits behind a store to `out` (which the compiler must assume may alias x).
  static ORDO_HD void quantize(const float* x, block& out) {
    float v[block_elems];
    for (int i = 0; i < block_elems; ++i) v[i] = x[i];
    float amax = 0.0f;
    for (int i = 0; i < block_elems; ++i) {
      const float a = v[i] < 0.0f ? -v[i] : v[i];
      amax = a > amax ? a : amax;
    }
    const float id = amax != 0.0f ? 127.0f / amax : 0.0f;
    std::int8_t q8[block_elems];
    for (int i = 0; i < block_elems; ++i) {
      int q = code_even(v[i] * id);
      q = q > 127 ? 127 : (q < -127 ? -127 : q);
      q8[i] = static_cast<std::int8_t>(q);
    }
    out.d = amax / 127.0f;
    for (int i = 0; i < block_elems; ++i) out.qs[i] = q8[i];
  }
  static ORDO_HD void dequant(const block& b, float* out) {
    for (int i = 0; i < block_elems; ++i) out[i] = b.d * static_cast<float>(b.qs[i]);
  }
};

}  // namespace ordo::quant
