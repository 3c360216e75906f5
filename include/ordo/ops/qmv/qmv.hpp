/// qmv: quantized matrix × R activation rows (problem.hpp). The op descriptor the registry and
/// the generic drivers read: name, problem, axes in the one parameter order (format, tier,
/// order), the validity filter, the kernel, and what an entry tells its users (`info`).
#pragma once
#include <string_view>
#include <type_traits>

#include "ordo/meta/type_list.hpp"
#include "ordo/ops/qmv/kernel.hpp"
#include "ordo/ops/qmv/problem.hpp"
#include "ordo/quant/formats.hpp"
#include "ordo/tier/rows.hpp"

namespace ordo::ops::qmv {

struct op {
  static constexpr std::string_view name = "qmv";
  using problem = qmv::problem;

  /// The axes' value lists under a tuning preset: formats × tiers × orders.
  template <class Preset>
  using axes = meta::type_list<quant::all_formats, typename Preset::qmv::tiers::template as_rows<meta::type_list>,
                                typename Preset::qmv::orders>;

  /// lane_strided everywhere; lane_blocked only where it is worth shipping as a comparison.
  template <class F, class Tier, class Order>
  static constexpr bool valid = std::is_same_v<Order, order::lane_strided> || std::is_same_v<F, quant::f32> ||
                                std::is_same_v<F, quant::q8_0> || std::is_same_v<F, quant::mxfp4>;

  template <class Preset, class F, class Tier, class Order>
  using kernel = qmv::kernel<F, Tier::value, Order, typename Preset::qmv::policy>;

  /// What an entry says about its spec, beyond its name.
  struct info {
    std::string_view format, activation, order;
    int dot_elems;  // weights per dot block = floats per activation block
  };
  template <class F, class Tier, class Order>
  static constexpr info describe() {
    return {F::name, F::activation::name, Order::name, F::dot_elems};
  }
};

}  // namespace ordo::ops::qmv
