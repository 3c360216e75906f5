/// router, the op descriptor: name, axes and validity. Axes, in spec order: tier R (rows per
/// pass) and selection. The selection is an exact top-k (a total order: larger score first, then
/// the lower expert id; NaN scores rank below −inf), so it has no reduction order; the only float
/// reduction is the n_used-term weight sum, fixed to the output order (no Order axis to choose).
#pragma once
#include <string_view>
#include <utility>

#include "ordo/ops/router/problem.hpp"
#include "ordo/tier/rows.hpp"

namespace ordo::ops::router {

struct op {
  static constexpr std::string_view name = "router";
  using tiers = tier::tier_list<1, 2, 3, 4, 5, 6, 7, 8, 16>;
  static constexpr selection selections[] = {selection::top_k, selection::hash};

  /// Calls fn.template operator()<R, S>() for every spec, in one fixed order (tier, then
  /// selection); the CPU entry list and kernels/router.cpp both walk it.
  template <class Fn>
  static constexpr void for_each_spec(Fn&& fn) {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((fn.template operator()<tiers::values[I], selection::top_k>(),
        fn.template operator()<tiers::values[I], selection::hash>()),
       ...);
    }(std::make_index_sequence<tiers::values.size()>{});
  }
};

template <int R, selection S>
constexpr bool valid(const problem& p) {
  if (p.rows < 1 || p.rows > R || p.n_used < 1 || p.n_used > max_used || p.n_used > p.n_expert) return false;
  if (p.logit_stride < std::size_t(p.n_expert) || p.out_stride < std::size_t(p.n_used)) return false;
  if constexpr (S == selection::hash) return p.tid2eid != nullptr && p.tokens != nullptr && p.n_tokens > 0;
  return true;
}

}  // namespace ordo::ops::router
