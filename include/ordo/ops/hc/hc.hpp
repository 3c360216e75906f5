/// hc, the op descriptor: name, axes and validity. Axes, in spec order: tier R (rows per pass),
/// Order (the lane split of the flat state's Σx² and of each mix dot product, and their combine
/// tree; pre and head only), stage. The tier only decides how many rows share one pass over the
/// F16 mixer weights; each row's reductions are the one-row reductions (E1, DESIGN §3a). The
/// Sinkhorn, the weighted sums and post have fixed sequential orders (4 terms, a = 0..3).
#pragma once
#include <cstddef>
#include <string_view>
#include <utility>

#include "ordo/ops/hc/problem.hpp"
#include "ordo/order/orders.hpp"
#include "ordo/tier/rows.hpp"

namespace ordo::ops::hc {

struct op {
  static constexpr std::string_view name = "hc";
  /// Decode (1), verify (2–6), prefill chunks (8, 16).
  using tiers = tier::tier_list<1, 2, 3, 4, 5, 6, 7, 8, 16>;
  /// Orders of the flat reductions; ls32 is the shipped one, lb32 exists for P5 non-vacuity.
  template <class Fn>
  static constexpr void for_each_order(Fn&& fn) {
    fn.template operator()<order::lane_strided>();
    fn.template operator()<order::lane_blocked>();
  }

  /// Calls fn.template operator()<R, Order, S>() for every spec, in one fixed order: for each
  /// order, every tier's pre and head; then every tier's post (which reduces nothing, so it has
  /// one spec per tier; its Order argument is ls32 and unused). The CPU entry list and the GPU
  /// instantiation (kernels/hc.cpp) both walk it.
  template <class Fn>
  static constexpr void for_each_spec(Fn&& fn) {
    for_each_order([&]<class Order>() {
      [&]<std::size_t... I>(std::index_sequence<I...>) {
        ((fn.template operator()<tiers::values[I], Order, stage::pre>(),
          fn.template operator()<tiers::values[I], Order, stage::head>()),
         ...);
      }(std::make_index_sequence<tiers::values.size()>{});
    });
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (fn.template operator()<tiers::values[I], order::lane_strided, stage::post>(), ...);
    }(std::make_index_sequence<tiers::values.size()>{});
  }
};

/// Mixes the stage reads from fn (0 for post).
constexpr int mixes_of(stage s) { return s == stage::pre ? n_pre_mix : s == stage::head ? n_head_mix : 0; }

/// Whether a problem fits spec (R, S): rows within the tier, strides that hold a row, the
/// pointers the stage uses.
template <int R, stage S>
constexpr bool valid(const problem& p) {
  if (p.rows < 1 || p.rows > R || p.n_embd < 1 || p.h == nullptr) return false;
  const std::size_t flat = std::size_t(n_streams) * std::size_t(p.n_embd);
  if (p.h_stride < flat) return false;
  if constexpr (S == stage::post) {
    return p.split != nullptr && p.split_stride >= std::size_t(n_pre_mix) && p.f != nullptr &&
           p.f_stride >= std::size_t(p.n_embd) && p.h_new != nullptr && p.h_new_stride >= flat;
  } else {
    if (p.fn == nullptr || p.scale == nullptr || p.base == nullptr || p.x == nullptr) return false;
    if (p.x_stride < std::size_t(p.n_embd)) return false;
    if constexpr (S == stage::pre) return p.split != nullptr && p.split_stride >= std::size_t(n_pre_mix);
    return true;
  }
}

}  // namespace ordo::ops::hc
