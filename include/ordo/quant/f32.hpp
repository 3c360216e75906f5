/// `f32` weights (ggml type 0): one float per block. Dot: see float_dot.hpp.
#pragma once

#include <cstdint>
#include <string_view>

#include "ordo/gpu/portability.hpp"
#include "ordo/quant/act_f32.hpp"
#include "ordo/quant/float_dot.hpp"

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
};

}  // namespace ordo::quant
