/// The specialization space of an op family under a tuning preset: the Boost.Hana cartesian
/// product of the family's axis lists (Op::axes<Preset>), filtered by Op::valid, as a tuple of
/// hana::type<spec<Op, Axes...>>. The registry table, the kernels/ instantiations and the test
/// drivers are all generated from it, so every shipped kernel is property-checked by
/// construction. Host-only (Hana).
#pragma once
#include <type_traits>

#include <boost/hana.hpp>

#include "ordo/meta/type_list.hpp"
#include "ordo/quant/formats.hpp"
#include "ordo/spec/spec.hpp"

namespace ordo::registry {

namespace hana = boost::hana;

/// Per-spec facts from the op descriptor: its validity and its entry info.
template <class Spec>
struct spec_traits;
template <class Op, class... Axes>
struct spec_traits<spec::spec<Op, Axes...>> {
  static constexpr bool valid = Op::template valid<Axes...>;
  static constexpr auto info() { return Op::template describe<Axes...>(); }
};

namespace detail {
template <class... Ts>
constexpr auto to_hana(meta::type_list<Ts...>) {
  return hana::tuple_t<Ts...>;
}
template <class... Lists>
constexpr auto axis_tuples(meta::type_list<Lists...>) {
  return hana::make_tuple(to_hana(Lists{})...);
}
}  // namespace detail

template <class Op, class Preset>
constexpr auto make_space() {
  constexpr auto product = hana::cartesian_product(detail::axis_tuples(typename Op::template axes<Preset>{}));
  constexpr auto specs = hana::transform(product, [](auto combo) {
    return hana::unpack(combo, [](auto... axis) { return hana::type_c<spec::spec<Op, typename decltype(axis)::type...>>; });
  });
  return hana::filter(specs, [](auto s) { return hana::bool_c<spec_traits<typename decltype(s)::type>::valid>; });
}

/// hana::tuple of hana::type<spec<Op, ...>>: every spec of Op this preset compiles.
template <class Op, class Preset>
inline constexpr auto space = make_space<Op, Preset>();

}  // namespace ordo::registry
