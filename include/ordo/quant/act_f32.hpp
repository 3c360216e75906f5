/// `act_f32`: the activation format of the float weight formats (f32, f16, bf16). A block is 32
/// floats taken as they are, so `quantize` is a copy; it exists so every weight format's dot has the
/// same shape (weight blocks × one activation block).
#pragma once

#include <cstdint>
#include <string_view>

#include "ordo/gpu/portability.hpp"

namespace ordo::quant {

struct act_f32 {
  static constexpr std::string_view name = "act_f32";
  static constexpr int block_elems = 32;
  static constexpr int block_bytes = 128;
  struct block {
    float v[32];
  };
  static_assert(sizeof(block) == block_bytes);

  static ORDO_HD void quantize(const float* x, block& out) {
    for (int i = 0; i < block_elems; ++i) out.v[i] = x[i];
  }
  static ORDO_HD void dequant(const block& b, float* out) {
    for (int i = 0; i < block_elems; ++i) out[i] = b.v[i];
  }
};

}  // namespace ordo::quant
