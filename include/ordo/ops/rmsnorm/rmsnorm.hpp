/// rmsnorm, the op descriptor the registry and the generic drivers read: name, problem, axes in
/// the one parameter order — tier R (rows per pass), Order (the lane split of Σx² and its combine
/// tree), weighting, epilogue — the validity filter, the kernel and the entry info. The tier only
/// decides how many rows one warp normalizes while it holds the weight; the reduction of each row
/// is the one-row reduction (E1, DESIGN §3a).
#pragma once
#include <string_view>

#include "ordo/meta/type_list.hpp"
#include "ordo/ops/rmsnorm/kernel.hpp"
#include "ordo/ops/rmsnorm/problem.hpp"
#include "ordo/order/orders.hpp"
#include "ordo/spec/axis_name.hpp"
#include "ordo/tier/rows.hpp"

namespace ordo::ops::rmsnorm {

struct op {
  static constexpr std::string_view name = "rmsnorm";
  using problem = rmsnorm::problem;

  /// Decode (1), verify (2–6), prefill chunks (8, 16) × ls32 (shipped) and lb32 (P5 non-vacuity)
  /// × weighting × epilogue: every combination is compiled.
  template <class Preset>
  using axes = meta::type_list<tier::tier_list<1, 2, 3, 4, 5, 6, 7, 8, 16>::as_rows<meta::type_list>,
                               meta::type_list<order::lane_strided, order::lane_blocked>,
                               meta::type_list<spec::option<weighting::weighted>, spec::option<weighting::plain>>,
                               meta::type_list<spec::option<epilogue::f32>, spec::option<epilogue::q8_32>>>;

  template <class Tier, class Order, class W, class E>
  static constexpr bool valid = true;

  template <class Preset, class Tier, class Order, class W, class E>
  using kernel = rmsnorm::kernel<Tier::value, Order, W::value, E::value, policy>;

  struct info {
    std::string_view order;
    weighting weights;
    epilogue writes;
  };
  template <class Tier, class Order, class W, class E>
  static constexpr info describe() {
    return {Order::name, W::value, E::value};
  }
};

}  // namespace ordo::ops::rmsnorm
