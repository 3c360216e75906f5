/// The qmv specialization space of this build: formats × tiers × orders (Boost.Hana), filtered.
/// The tuning preset supplies tiers and orders; the filter keeps the second order (lane_blocked)
/// only where it is worth shipping as a comparison. The registry table and the property tests are
/// both generated from this one space, so every shipped kernel is property-checked by construction.
#pragma once
#include <boost/hana.hpp>

#include ORDO_TUNE_HEADER
#include "ordo/quant/format_list.hpp"

namespace ordo::registry {

namespace hana = boost::hana;

template <class... Ts>
constexpr auto to_hana(meta::type_list<Ts...>) {
  return hana::tuple_t<Ts...>;
}
template <int... Rs>
constexpr auto to_hana(tier::tier_list<Rs...>) {
  return hana::tuple_c<int, Rs...>;
}

/// Keep a (format, tier, order) triple? lane_strided everywhere; lane_blocked for f32, q8_0, mxfp4.
inline constexpr auto qmv_spec_wanted = [](auto spec) {
  using format = typename decltype(+hana::at_c<0>(spec))::type;
  using order_tag = typename decltype(+hana::at_c<2>(spec))::type;
  constexpr bool blocked_ok = std::is_same_v<format, quant::f32> || std::is_same_v<format, quant::q8_0> ||
                              std::is_same_v<format, quant::mxfp4>;
  return hana::bool_c<std::is_same_v<order_tag, order::lane_strided> || blocked_ok>;
};

inline constexpr auto qmv_space = hana::filter(
    hana::cartesian_product(hana::make_tuple(quant::format_tags, to_hana(tune::qmv_tiers{}), to_hana(tune::qmv_orders{}))),
    qmv_spec_wanted);

/// Activation formats the qmv formats need (each once).
inline constexpr auto activation_space = hana::tuple_t<quant::act_f32, quant::q8_32, quant::q8_k>;

/// Calls f(hana::type<F>, int R, hana::type<Order>) for every spec of the space.
template <class Fn>
constexpr void for_each_qmv_spec(Fn&& f) {
  hana::for_each(qmv_space, [&](auto spec) { f(hana::at_c<0>(spec), hana::at_c<1>(spec), hana::at_c<2>(spec)); });
}

}  // namespace ordo::registry
