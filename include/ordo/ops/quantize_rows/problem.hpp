/// The quantize_rows problem: `rows` float rows of k elements become k / A::block_elems blocks of
/// activation format A each (q8_32, q8_k, act_f32), the activations of qmv.
#pragma once
#include <cstddef>

#include "ordo/quant/concepts.hpp"

namespace ordo::ops::quantize_rows {

struct problem {
  const float* x;              // [rows][x_stride] floats
  std::size_t x_stride;         // >= k
  std::byte* out;              // [rows][out_row_bytes] activation blocks
  std::size_t out_row_bytes;    // >= k / A::block_elems * A::block_bytes
  int k;                       // a multiple of A::block_elems
  int rows;
};

template <quant::activation_format A>
constexpr bool fits(const problem& p) {
  return p.k >= 0 && p.k % A::block_elems == 0 && p.rows >= 0 && p.x_stride >= std::size_t(p.k) &&
         p.out_row_bytes >= std::size_t(p.k / A::block_elems) * std::size_t(A::block_bytes);
}

}  // namespace ordo::ops::quantize_rows
