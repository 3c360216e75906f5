/// Host replay of quantize_rows for P2: row by row, block by block, A::quantize straight from the
/// float row (no problem struct, no strides, no work-item indexing).
#pragma once
#include <vector>

#include "ordo/quant/concepts.hpp"

namespace ordo::ops::quantize_rows {

template <quant::activation_format A>
std::vector<typename A::block> replay_row(const float* x, int k) {
  std::vector<typename A::block> out(std::size_t(k / A::block_elems));
  for (std::size_t b = 0; b < out.size(); ++b) A::quantize(x + b * A::block_elems, out[b]);
  return out;
}

}  // namespace ordo::ops::quantize_rows
