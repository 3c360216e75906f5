/// `f32` weights (ggml type 0): one float per block. Dot: see float_dot.hpp.
#pragma once

#include <cstdint>
#include <string_view>

#include "ordo/gpu/portability.hpp"
#include "ordo/quant/act_f32.hpp"
#include "ordo/quant/float_dot.hpp"
#include "ordo/quant/random_draws.hpp"

namespace ordo::quant {

struct f32 {
  static constexpr std::string_view name = "f32";
  static constexpr std::uint32_t ggml_type = 0;
  static constexpr int block_elems = 1;
  static constexpr int block_bytes = 4;
  struct block {
    float v;
  };
  static_assert(sizeof(block) == block_bytes);

  static ORDO_HD void dequant(const block& b, float* out) { out[0] = b.v; }

  using activation = act_f32;
  static constexpr int dot_elems = 32;
  /// `w` points at the first of 32 consecutive blocks.
  static ORDO_HD float dot_block(const block* w, const activation::block& x) {
    return detail::float_dot_32<f32>(w, x);
  }

  // ---- random blocks (random_block.hpp; host-only) ----
  /// v = scale·u, u uniform on the 2^-23 grid of [-1, 1).
  template <class Rng>
  static block random_block(Rng& rng, float scale) {
    block b{};
    b.v = scale * uniform_pm1(rng);
    return b;
  }
  /// random_block(rng, gain·s) has about the stddev of uniform ±s (measured; synth relies on it).
  static constexpr float random_block_gain = 1.0f;
};

}  // namespace ordo::quant
