/// indexer, the op descriptor: name, axes and validity. Axes, in spec order: tier R, Order (the
/// q·key lane split; the head sum runs h ascending by fmaf from +0) and selector. The top-k is
/// exact in any combine order (a strict total order), so its only rule is the tie rule.
#pragma once
#include <string_view>
#include <utility>

#include "ordo/ops/indexer/problem.hpp"
#include "ordo/order/orders.hpp"
#include "ordo/tier/rows.hpp"

namespace ordo::ops::indexer {

/// An indexer Order: q·key by DotOrder, heads summed in ascending order.
template <class DotOrder>
struct score_order {
  using dot_order = DotOrder;
  static constexpr std::string_view name = DotOrder::name;
};

struct op {
  static constexpr std::string_view name = "indexer";
  using tiers = tier::tier_list<1, 2, 3, 4, 5, 6, 7, 8, 16>;
  using shipped_order = score_order<order::lane_strided>;

  /// Calls fn.template operator()<R, Order, S>() for every spec (tier, then selector).
  template <class Fn>
  static constexpr void for_each_spec(Fn&& fn) {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((fn.template operator()<tiers::values[I], shipped_order, selector::flat>(),
        fn.template operator()<tiers::values[I], shipped_order, selector::hierarchical>()),
       ...);
    }(std::make_index_sequence<tiers::values.size()>{});
  }
};

/// The hierarchical workspace one row needs: every block's survivors (top_k at most each).
constexpr std::size_t survivor_capacity(const problem& p) {
  return std::size_t((p.n_keys + hierarchical_block - 1) / hierarchical_block) * std::size_t(p.top_k);
}

constexpr bool power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

template <int R, selector S>
constexpr bool valid(const problem& p) {
  if (p.rows < 1 || p.rows > R || p.n_heads < 1 || !power_of_two(p.head_dim) || p.head_dim > max_head_dim) return false;
  if (p.top_k < 1 || p.sel_stride < std::size_t(p.top_k) || p.score_stride < std::size_t(p.n_keys)) return false;
  if (p.q_stride < std::size_t(p.n_heads) * std::size_t(p.head_dim) || p.w_stride < std::size_t(p.n_heads)) return false;
  if (p.key_stride < std::size_t(p.head_dim) || p.q_fp4 == nullptr || p.scores == nullptr) return false;
  if constexpr (S == selector::hierarchical) return p.survivors != nullptr && p.survivor_stride >= survivor_capacity(p);
  return true;
}

}  // namespace ordo::ops::indexer
