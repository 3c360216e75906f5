/// `bf16` weights (ggml type 30): one bfloat16 per block, stored as its raw uint16_t bits.
/// Dequant is the exact widening numeric::bf16_to_f32. Dot: see float_dot.hpp.
#pragma once

#include <cstdint>
#include <string_view>

#include "ordo/gpu/portability.hpp"
#include "ordo/numeric/conversions.hpp"
#include "ordo/quant/act_f32.hpp"
#include "ordo/quant/float_dot.hpp"

namespace ordo::quant {

struct bf16 {
  static constexpr std::string_view name = "bf16";
  static constexpr std::uint32_t ggml_type = 30;
  static constexpr int block_elems = 1;
  static constexpr int block_bytes = 2;
  struct block {
    std::uint16_t bits;
  };
  static_assert(sizeof(block) == block_bytes);

  static ORDO_HD void dequant(const block& b, float* out) { out[0] = numeric::bf16_to_f32(b.bits); }

  using activation = act_f32;
  static constexpr int dot_elems = 32;
  /// `w` points at the first of 32 consecutive blocks.
  static ORDO_HD float dot_block(const block* w, const activation::block& x) {
    return detail::float_dot_32<bf16>(w, x);
  }
};

}  // namespace ordo::quant
