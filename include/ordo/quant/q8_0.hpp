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
#include "ordo/quant/random_draws.hpp"

namespace ordo::quant {

struct q8_0 : integer_dot<q8_0> {  // dot_int, dot_block: int_dot.hpp
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
  /// The float tail applied to dot_int's result.
  static ORDO_HD float dot_scale(const block& w, float x_d, std::int32_t isum) {
    return (numeric::f16_to_f32(w.d) * x_d) * static_cast<float>(isum);
  }

  // ---- random blocks (random_block.hpp; host-only) ----
  /// d = f16(scale/127 · h), h uniform on the 2^-24 grid of [0.5, 1); codes uniform in [-127, 127].
  template <class Rng>
  static block random_block(Rng& rng, float scale) {
    block b{};
    b.d = numeric::f32_to_f16(scale / 127.0f * uniform_half_to_one(rng));
    for (auto& q : b.qs) q = static_cast<std::int8_t>(static_cast<int>(rng() % 255u) - 127);
    return b;
  }
  /// random_block(rng, gain·s) has about the stddev of uniform ±s (measured; synth relies on it).
  static constexpr float random_block_gain = 1.3f;
};

}  // namespace ordo::quant
