/// moe: the routed experts and the shared expert of the DS4 FFN sublayer as two grouped launches
/// (problem.hpp). The op descriptor the registry and the generic drivers read. Axes, in spec order:
/// expert layout (layout.hpp), tier R (rows per launch; an expert's pass holds up to R pairs),
/// Order (qmv's: moe's projections are qmv's accumulate, so they take qmv's tiers and orders under
/// a preset), phase. Names: "moe.q2.r4.ls32.gate_up", "moe.q2.r4.ls32.down".
#pragma once
#include <string_view>
#include <type_traits>

#include "ordo/meta/type_list.hpp"
#include "ordo/ops/moe/kernel.hpp"
#include "ordo/ops/moe/layout.hpp"
#include "ordo/ops/moe/problem.hpp"
#include "ordo/order/orders.hpp"
#include "ordo/spec/axis_name.hpp"
#include "ordo/tier/rows.hpp"

namespace ordo::ops::moe {

struct op {
  static constexpr std::string_view name = "moe";
  using problem = moe::problem;

  template <class Preset>
  using axes = meta::type_list<all_layouts, typename Preset::qmv::tiers::template as_rows<meta::type_list>,
                               typename Preset::qmv::orders,
                               meta::type_list<spec::option<phase::gate_up>, spec::option<phase::down>>>;

  /// lane_strided everywhere; lane_blocked for the q8_0 layout only, as the second order P5 needs
  /// (every entry costs compile time of every GPU preset; the engine runs ls32).
  template <class L, class Tier, class Order, class P>
  static constexpr bool valid = std::is_same_v<Order, order::lane_strided> || std::is_same_v<L, q8_0_layout>;

  template <class Preset, class L, class Tier, class Order, class P>
  using kernel = moe::kernel<L, Tier::value, Order, P::value, typename Preset::qmv::policy>;

  struct info {
    std::string_view layout, gate_up, down, shared, order;
    phase runs;
  };
  template <class L, class Tier, class Order, class P>
  static constexpr info describe() {
    return {L::name, L::gate_up::name, L::down::name, L::shared::name, Order::name, P::value};
  }
};

}  // namespace ordo::ops::moe
