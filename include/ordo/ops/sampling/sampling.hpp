/// sampling, the op descriptor: name, axes and validity. Axes, in spec order: tier R (rows per
/// pass) and mode (greedy, sample). argmax is an exact reduction: ranks_before (body.hpp) is a
/// strict total order, so any split of the vocabulary among threads and any combine tree choose the
/// same token. Mode sample's float sums have the one chunked order of body.hpp, fixed by n_vocab
/// alone; there is no second order to choose, so no Order axis exists.
#pragma once
#include <string_view>
#include <utility>

#include "ordo/ops/sampling/problem.hpp"
#include "ordo/tier/rows.hpp"

namespace ordo::ops::sampling {

struct op {
  static constexpr std::string_view name = "sampling";
  using tiers = tier::tier_list<1, 2, 3, 4, 5, 6, 7, 8, 16>;
  static constexpr mode modes[] = {mode::greedy, mode::sample};

  /// Calls fn.template operator()<R, M>() for every spec, in one fixed order (tier, then mode);
  /// the CPU entry list and kernels/sampling.cpp both walk it.
  template <class Fn>
  static constexpr void for_each_spec(Fn&& fn) {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((fn.template operator()<tiers::values[I], mode::greedy>(), fn.template operator()<tiers::values[I], mode::sample>()),
       ...);
    }(std::make_index_sequence<tiers::values.size()>{});
  }
};

/// The settings mode sample accepts (problem.hpp): NaN and infinities are refused, not guessed.
constexpr bool valid(const settings& s) {
  const bool t_ok = s.temperature == s.temperature && s.temperature < 3.4e38f && s.temperature > -3.4e38f;
  return t_ok && s.top_k >= 0 && s.top_p > 0.0f && s.top_p <= 1.0f && s.min_p >= 0.0f && s.min_p <= 1.0f;
}

template <int R>
constexpr bool valid(const problem& p) {
  return p.rows >= 1 && p.rows <= R && p.n_vocab >= 1 && p.logit_stride >= std::size_t(p.n_vocab) && p.tokens;
}

template <int R, mode M>
constexpr bool valid(const problem& p) {
  return valid<R>(p) && (M == mode::greedy || (p.positions && valid(p.sampler)));
}

}  // namespace ordo::ops::sampling
