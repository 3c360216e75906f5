/// Integer dot products of int8 vectors with int32 accumulation: the exact core of every quantized
/// dot (DESIGN §3: integer arithmetic is exact in any order, so only the float tail after it has a
/// fixed sequence). These are the portable forms, plain loops that are correct on every backend.
/// A kernel may replace a call with packed instructions (dp4a on NVIDIA, sudot4/sdot4 on AMD, int8
/// MMA tiles) over the same operands; the result is the same integer by construction.
#pragma once

#include <cstdint>

#include "ordo/gpu/portability.hpp"

namespace ordo::quant {

/// Σ a[i]·b[i] for i < n, in int32. |a|,|b| <= 128 and n <= 256 keep it far from overflow.
ORDO_HD inline std::int32_t dot_i8(const std::int8_t* a, const std::int8_t* b, int n) {
  // dp4a / sudot4 go here: four int8 pairs per instruction over the same a, b.
  std::int32_t sum = 0;
  for (int i = 0; i < n; ++i) sum += std::int32_t{a[i]} * std::int32_t{b[i]};
  return sum;
}

/// Σ a[i] for i < n, in int32 (block sums of activations, e.g. Q8_K's bsums).
ORDO_HD inline std::int32_t sum_i8(const std::int8_t* a, int n) {
  std::int32_t sum = 0;
  for (int i = 0; i < n; ++i) sum += a[i];
  return sum;
}

}  // namespace ordo::quant
