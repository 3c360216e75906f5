/// The double-precision oracle of one qmv output (a weight row against dequantized activations)
/// with its derived float bound, shared by the qmv harness and the families built on qmv's
/// accumulate (moe). exact = Σ_b e_b, e_b = Σ_j w_j·x_j in double over the dequantized weights w
/// (F::dequant) and the activations x the kernel reads (A::dequant of its blocks). The kernel
/// computes each term t_b in float and sums the terms in the order's chains:
///  - term error: |t_b − e_b| <= γ(c_F)·C_b, with C_b = Σ_j |w_j|·|x_j| except for formats with
///    a block min (q2_k, q4_k), where w_j = d1·q_j − m1 and C_b = Σ_j (|d1·q_j| + |m1|)·|x_j|
///    (the int→float conversions, the scale products and the fma each round once against these
///    components, and so does the oracle's own dequant: c_F = 12 for the integer-dot formats;
///    the float formats' 32-long fma chain against exact act_f32 values: c_F = 32);
///  - accumulation: each term passes through at most L + 5 float additions, L = the longest
///    lane chain of the order for nb blocks (counted from the order's written definition), 5
///    butterfly levels, so |Σ error| <= γ(L+5)·Σ_b (|e_b| + γ(c_F)·C_b);
///  - plus 2^-120 for terms that underflow (none do with these magnitudes).
#pragma once
#include <algorithm>
#include <cmath>
#include <vector>

#include "ordo/order/replay.hpp"
#include "ordo/quant/concepts.hpp"

namespace ordo::test {

inline double gamma(int n) { return n * 0x1p-24 / (1 - n * 0x1p-24); }

/// The longest lane chain of Order over nb blocks, from the order's written definition.
template <class Order>
int longest_chain(int nb) {
  std::vector<int> per_lane(32, 0);
  for (int b = 0; b < nb; ++b) ++per_lane[std::size_t(order::definition<Order>::lane_of(b, nb))];
  return *std::max_element(per_lane.begin(), per_lane.end());
}

struct dot_estimate {
  double exact = 0;      // the double-precision value
  double bound = 0;      // |float result − exact| <= bound
  double magnitude = 0;  // Σ_j |w_j|·|x_j| (C_b summed): what an error in x is multiplied by
};

/// One output: weight row `row` (nb dot blocks of F) against dequantized activations x [nb·dot_elems].
template <quant::quant_format F, class Order>
dot_estimate dot_oracle(const typename F::block* row, const float* x, int nb) {
  constexpr int c_f = quant::integer_dot_format<F> ? 12 : 32;
  const double g_term = gamma(c_f), g_acc = gamma(longest_chain<Order>(nb) + 5);
  std::vector<float> w(std::size_t(F::dot_elems)), w_scaled(std::size_t(F::dot_elems));
  double exact = 0, magnitude = 0, components = 0;
  for (int b = 0; b < nb; ++b) {
    double e_b = 0, c_b = 0;
    for (int i = 0; i < quant::blocks_per_dot<F>; ++i) {
      const auto& blk = row[std::size_t(b) * quant::blocks_per_dot<F> + std::size_t(i)];
      F::dequant(blk, w.data() + std::size_t(i) * F::block_elems);
      auto scaled_only = blk;  // the block without its min: w = d1·q − m1 → d1·q
      if constexpr (requires { scaled_only.dmin; }) scaled_only.dmin = 0;
      F::dequant(scaled_only, w_scaled.data() + std::size_t(i) * F::block_elems);
    }
    for (int j = 0; j < F::dot_elems; ++j) {
      const double xv = x[std::size_t(b) * F::dot_elems + std::size_t(j)];
      const double wv = w[std::size_t(j)], sv = w_scaled[std::size_t(j)];
      e_b += wv * xv;
      c_b += (std::fabs(sv) + std::fabs(sv - wv)) * std::fabs(xv);
    }
    exact += e_b;
    magnitude += std::fabs(e_b) + g_term * c_b;
    components += c_b;
  }
  return {exact, g_acc * magnitude + g_term * components + 0x1p-120, components};
}

}  // namespace ordo::test
