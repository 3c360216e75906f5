/// spec<Op, Axes...>: one specialization of an op family. The axes are types in the family's one
/// parameter order (for qmv: format, tier, order); the name folds the op's name and each axis's
/// name trait with '.' ("qmv.mxfp4.r4.ls32"). Nothing else names a spec, so the registry, the
/// tests and `ordo specs` cannot disagree about what a name means.
#pragma once
#include <cstddef>
#include <tuple>
#include <type_traits>

#include "ordo/spec/axis_name.hpp"

namespace ordo::spec {

template <class Op, class... Axes>
struct spec {
  using op = Op;
  static constexpr std::size_t axis_count = sizeof...(Axes);
  template <std::size_t I>
  using axis = std::tuple_element_t<I, std::tuple<Axes...>>;
  /// The axis values' names in parameter order ({"mxfp4", "r4", "ls32"}).
  static constexpr name_text axis_names[sizeof...(Axes) > 0 ? sizeof...(Axes) : 1] = {axis_name_v<Axes>...};
  static constexpr name_text name = [] {
    name_text n{Op::name};
    ((n.append(".").append(axis_name_v<Axes>)), ...);
    return n;
  }();
};

namespace detail {
template <class T>
struct tier_of_axis : std::integral_constant<int, 0> {};
template <int R>
struct tier_of_axis<tier::rows<R>> : std::integral_constant<int, R> {};
}  // namespace detail

/// The spec's tier R (its rows<R> axis), or 0 for a family without a tier axis.
template <class Spec>
inline constexpr int tier_of = [] {
  int t = 0;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((t = detail::tier_of_axis<typename Spec::template axis<I>>::value ? detail::tier_of_axis<typename Spec::template axis<I>>::value : t), ...);
  }(std::make_index_sequence<Spec::axis_count>{});
  return t;
}();

/// The family's kernel for this spec: Op::kernel<Preset, Axes...>.
template <class Preset, class Spec>
struct kernel_of;
template <class Preset, class Op, class... Axes>
struct kernel_of<Preset, spec<Op, Axes...>> {
  using type = typename Op::template kernel<Preset, Axes...>;
};
template <class Preset, class Spec>
using kernel_t = typename kernel_of<Preset, Spec>::type;

}  // namespace ordo::spec
