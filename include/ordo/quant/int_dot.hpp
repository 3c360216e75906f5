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

/// The integer parts of a dot whose format has a per-sub-block min (Q2_K, Q4_K): sumi = Σ scale·
/// code·x and summ = Σ min·x. Both are plain integer sums, so parts computed over any split of a
/// block (by chunk, by lane) add up to exactly the same pair.
struct scaled_min_sums {
  std::int32_t sumi = 0;
  std::int32_t summ = 0;
};
ORDO_HD constexpr scaled_min_sums operator+(scaled_min_sums a, scaled_min_sums b) {
  return {a.sumi + b.sumi, a.summ + b.summ};
}

/// The part every integer-dot format (concepts.hpp integer_dot_format) has in common, derived from
/// what the format states: its integer chunk (`int_sum`, `int_chunks`, `dot_int_chunk`) and its
/// float tail (`dot_scale`). A format F derives from integer_dot<F> and gets
///   dot_int(w, x)   = Σ_c dot_int_chunk(w, x, c) for c < int_chunks, in int_sum (exact: any
///                     order gives the same sum, so this one is only the portable spelling)
///   dot_block(w, x) = dot_scale(*w, x.d, dot_int(*w, x)): the float tail applied once to the
///                     whole block's integer part (an integer-dot format's dot reads one block).
template <class F>
struct integer_dot {
  // `Self` defaults to F and is never deduced: naming F's members in the signature waits until a
  // call, when F is complete (F derives from this class, so it is incomplete here).
  template <class Self = F>
  static ORDO_HD typename Self::int_sum dot_int(const typename Self::block& w,
                                                const typename Self::activation::block& x) {
    typename Self::int_sum sum{};
    for (int c = 0; c < Self::int_chunks; ++c) sum = sum + Self::dot_int_chunk(w, x, c);
    return sum;
  }
  template <class Self = F>
  static ORDO_HD float dot_block(const typename Self::block* w, const typename Self::activation::block& x) {
    static_assert(Self::dot_elems == Self::block_elems, "an integer-dot format's dot reads one block");
    return Self::dot_scale(*w, x.d, dot_int<Self>(*w, x));
  }
};

/// Σ a[i] for i < n, in int32 (block sums of activations, e.g. Q8_K's bsums).
ORDO_HD inline std::int32_t sum_i8(const std::int8_t* a, int n) {
  std::int32_t sum = 0;
  for (int i = 0; i < n; ++i) sum += a[i];
  return sum;
}

}  // namespace ordo::quant
