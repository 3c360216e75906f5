/// rmsnorm, the op descriptor: its name, axes and validity. Axes, in spec order: tier R (rows per
/// pass), Order (the lane split of Σx² and its combine tree), weighting, epilogue. The tier only
/// decides how many rows one warp normalizes while it holds the weight; the reduction of each row
/// is the one-row reduction (E1, DESIGN §3a).
#pragma once
#include <string_view>
#include <utility>

#include "ordo/ops/rmsnorm/problem.hpp"
#include "ordo/order/orders.hpp"
#include "ordo/tier/rows.hpp"

namespace ordo::ops::rmsnorm {

struct op {
  static constexpr std::string_view name = "rmsnorm";
  /// Decode (1), verify (2–6), prefill chunks (8, 16): the tiers the steps use.
  using tiers = tier::tier_list<1, 2, 3, 4, 5, 6, 7, 8, 16>;
  /// Orders of the reduction Σx²; ls32 is the shipped one, lb32 exists for P5 non-vacuity.
  template <class Fn>
  static constexpr void for_each_order(Fn&& fn) {
    fn.template operator()<order::lane_strided>();
    fn.template operator()<order::lane_blocked>();
  }
  static constexpr weighting weightings[] = {weighting::weighted, weighting::plain};
  static constexpr epilogue epilogues[] = {epilogue::f32, epilogue::q8_32};

  /// Calls fn.template operator()<R, Order, W, E>() for every spec of the space, in one fixed
  /// order (order, then tier, then weighting, then epilogue): the CPU entry list and the GPU
  /// instantiation (kernels/rmsnorm.cpp) both walk it, so they list the same specs.
  template <class Fn>
  static constexpr void for_each_spec(Fn&& fn) {
    for_each_order([&]<class Order>() {
      [&]<std::size_t... I>(std::index_sequence<I...>) {
        ((fn.template operator()<tiers::values[I], Order, weighting::weighted, epilogue::f32>(),
          fn.template operator()<tiers::values[I], Order, weighting::weighted, epilogue::q8_32>(),
          fn.template operator()<tiers::values[I], Order, weighting::plain, epilogue::f32>(),
          fn.template operator()<tiers::values[I], Order, weighting::plain, epilogue::q8_32>()),
         ...);
      }(std::make_index_sequence<tiers::values.size()>{});
    });
  }
};

/// Whether a problem fits spec (R, E): rows within the tier, shapes the epilogue can block.
template <int R, epilogue E>
constexpr bool valid(const problem& p) {
  if (p.rows < 1 || p.rows > R || p.n_heads < 1 || p.head_dim < 1) return false;
  const std::size_t width = std::size_t(p.n_heads) * std::size_t(p.head_dim);
  if (p.x_stride < width || p.out_stride < width) return false;
  if constexpr (E == epilogue::q8_32) {
    if (p.head_dim % 32 != 0 || p.q8 == nullptr || p.q8_row_bytes < width / 32 * 36) return false;
  }
  return true;
}

}  // namespace ordo::ops::rmsnorm
