/// `q8_0` weights (ggml type 8): 32 elements in 34 bytes, {f16 d; int8 qs[32]}, x_i = d·qs[i]
/// (ds4-model §10.1). Dequant matches ggml's dequantize_row_q8_0: (float)qs[i] · f16_to_f32(d).
///
/// Dot against a `q8_32` activation block (x.d, x.qs):
///   isum = Σ_i qs[i]·x.qs[i]                      (int32, exact, any association)
///   dot  = (f16_to_f32(d) · x.d) · (float)isum    (two IEEE multiplies, in this order)
/// |isum| <= 32·127·127 < 2^24, so (float)isum is exact.
#pragma once

#include <cstdint>
#include <string_view>

#include "ordo/gpu/portability.hpp"
#include "ordo/numeric/conversions.hpp"
#include "ordo/quant/int_dot.hpp"
#include "ordo/quant/q8_32.hpp"

namespace ordo::quant {

struct q8_0 {
  static constexpr std::string_view name = "q8_0";
  static constexpr std::uint32_t ggml_type = 8;
  static constexpr int block_elems = 32;
  static constexpr int block_bytes = 34;
  struct block {
    std::uint16_t d;  // f16
    std::int8_t qs[32];
  };
  static_assert(sizeof(block) == block_bytes);

  static ORDO_HD void dequant(const block& b, float* out) {
    const float d = numeric::f16_to_f32(b.d);
    for (int i = 0; i < block_elems; ++i) out[i] = static_cast<float>(b.qs[i]) * d;
  }

  using activation = q8_32;
  static constexpr int dot_elems = 32;

  using int_sum = std::int32_t;
  /// One chunk: the whole 32-element block.
  static constexpr int int_chunks = 1;
  static ORDO_HD int_sum dot_int_chunk(const block& w, const activation::block& x, int /*c*/) {
    return dot_i8(w.qs, x.qs, 32);
  }
  /// The exact integer part of the dot.
  static ORDO_HD int_sum dot_int(const block& w, const activation::block& x) { return dot_int_chunk(w, x, 0); }
  /// The float tail applied to dot_int's result.
  static ORDO_HD float dot_scale(const block& w, float x_d, std::int32_t isum) {
    return (numeric::f16_to_f32(w.d) * x_d) * static_cast<float>(isum);
  }
  static ORDO_HD float dot_block(const block* w, const activation::block& x) {
    return dot_scale(*w, x.d, dot_int(*w, x));
  }
};

}  // namespace ordo::quant
