/// The dot of the float weight formats (f32, f16, bf16) against an `act_f32` block: one fmaf chain
/// in ascending element order starting from +0.0f,
///   t = fmaf(w0, x0, 0.f); t = fmaf(w1, x1, t); ... t = fmaf(w31, x31, t)
/// where w_i is the weight widened to f32 (exact for f16 and bf16). One fixed sequence of IEEE
/// operations, so host and device agree to the bit.
#pragma once

#include <cmath>

#include "ordo/gpu/portability.hpp"
#include "ordo/quant/act_f32.hpp"

namespace ordo::quant::detail {

/// `Format::dequant` of each of the 32 single-element blocks at `w`, fmaf-chained with `x`.
template <class Format>
ORDO_HD float float_dot_32(const typename Format::block* w, const act_f32::block& x) {
  float t = 0.0f;
  for (int i = 0; i < act_f32::block_elems; ++i) {
    float wi;
    Format::dequant(w[i], &wi);
    t = fmaf(wi, x.v[i], t);
  }
  return t;
}

}  // namespace ordo::quant::detail
