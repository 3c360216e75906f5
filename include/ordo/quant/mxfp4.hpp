/// `mxfp4` weights (ggml type 39, block_mxfp4): 32 elements in 17 bytes, {u8 e; u8 qs[16]}
/// (ds4-model §10.6). Split-half nibble order: qs[j] low nibble is element j, high nibble element
/// j+16. A nibble is an E2M1 code; like ggml we use its doubled integer value
///   kvalue(n) = {0,1,2,3,4,6,8,12, 0,-1,-2,-3,-4,-6,-8,-12}[n]
/// times the half scale 2^(e-128) (numeric::e8m0_to_f32_half, e = 0 → 2^-128, e = 255 → 2^127).
/// Dequant matches ggml's dequantize_row_mxfp4: (float)kvalue · e8m0_to_f32_half(e).
///
/// Dot against a `q8_32` activation block:
///   isum = Σ_i kvalue(nibble_i)·x.qs[i]                 (int32, exact; |isum| < 2^24)
///   dot  = (e8m0_to_f32_half(e) · x.d) · (float)isum    (two IEEE multiplies, in this order)
#pragma once

#include <cstdint>
#include <string_view>

#include "ordo/gpu/portability.hpp"
#include "ordo/numeric/conversions.hpp"
#include "ordo/quant/int_dot.hpp"
#include "ordo/quant/q8_32.hpp"
#include "ordo/quant/random_draws.hpp"

namespace ordo::quant {

struct mxfp4 : integer_dot<mxfp4> {  // dot_int, dot_block: int_dot.hpp
  static constexpr std::string_view name = "mxfp4";
  static constexpr std::uint32_t ggml_type = 39;
  static constexpr int block_elems = 32;
  static constexpr int block_bytes = 17;
  struct block {
    std::uint8_t e;  // E8M0 scale
    std::uint8_t qs[16];
  };
  static_assert(sizeof(block) == block_bytes);

  /// Doubled E2M1 value of the low 4 bits of `nibble`: magnitudes {0,1,2,3,4,6,8,12}, bit 3 the
  /// sign (code 8 is zero). Arithmetic instead of a table so device code needs no constant memory.
  static ORDO_HD constexpr int kvalue(std::uint8_t nibble) {
    const int m = nibble & 7;
    const int mag = m < 4 ? m : (2 | (m & 1)) << ((m >> 1) - 1);
    return (nibble & 8) != 0 ? -mag : mag;
  }
  /// The 32 doubled E2M1 values of a block, in element order.
  static ORDO_HD void unpack(const block& b, std::int8_t* out) {
    for (int j = 0; j < 16; ++j) {
      out[j] = static_cast<std::int8_t>(kvalue(b.qs[j] & 0x0f));
      out[j + 16] = static_cast<std::int8_t>(kvalue(b.qs[j] >> 4));
    }
  }

  static ORDO_HD void dequant(const block& b, float* out) {
    const float d = numeric::e8m0_to_f32_half(b.e);
    for (int j = 0; j < 16; ++j) {
      out[j] = static_cast<float>(kvalue(b.qs[j] & 0x0f)) * d;
      out[j + 16] = static_cast<float>(kvalue(b.qs[j] >> 4)) * d;
    }
  }

  using activation = q8_32;
  static constexpr int dot_elems = 32;

  using int_sum = std::int32_t;
  /// One chunk: the whole 32-element block.
  static constexpr int int_chunks = 1;
  static ORDO_HD int_sum dot_int_chunk(const block& w, const activation::block& x, int /*c*/) {
    std::int8_t v[32];
    unpack(w, v);
    return dot_i8(v, x.qs, 32);
  }
  static ORDO_HD float dot_scale(const block& w, float x_d, std::int32_t isum) {
    return (numeric::e8m0_to_f32_half(w.e) * x_d) * static_cast<float>(isum);
  }

  // ---- random blocks (random_block.hpp; host-only) ----
  /// e = 127 + floor(log2 scale) - 3 - {0 or 1}, clamped to [1, 254], so the largest code
  /// (±12 · 2^(e-128)) is at most 0.75·scale; all 16 nibble codes uniform. The power-of-two
  /// scales leave the gained stddev within a factor √2 either way.
  template <class Rng>
  static block random_block(Rng& rng, float scale) {
    block b{};
    int e = 127 + detail::floor_log2(scale) - 3 - static_cast<int>(rng() & 1u);
    e = e < 1 ? 1 : (e > 254 ? 254 : e);
    b.e = static_cast<std::uint8_t>(e);
    detail::random_bytes(rng, b.qs, sizeof b.qs);
    return b;
  }
  /// random_block(rng, gain·s) has about the stddev of uniform ±s (measured; synth relies on it).
  static constexpr float random_block_gain = 3.4f;
};

}  // namespace ordo::quant
