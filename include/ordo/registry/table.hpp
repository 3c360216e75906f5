/// registry::table<Op>: the constexpr table, sorted by name, of every specialization of op family
/// Op compiled into this build; registry::find<Op>(name). A lookup that misses throws with the
/// spec's name and the tuning preset: there is no fallback to another spec. Host-only.
#pragma once
#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <string_view>

#include ORDO_TUNE_HEADER
#include "ordo/registry/entry.hpp"
#include "ordo/registry/space.hpp"

namespace ordo::registry {

template <class Spec>
constexpr entry<typename Spec::op> make_entry() {
  static_assert(Spec::axis_count <= max_axes, "raise registry::max_axes");
  entry<typename Spec::op> e{};
  e.name = Spec::name;
  for (std::size_t i = 0; i < Spec::axis_count; ++i) e.axes[i] = Spec::axis_names[i];
  e.axis_count = Spec::axis_count;
  e.tier = spec::tier_of<Spec>;
  e.info = spec_traits<Spec>::info();
  e.run_cpu = &run_cpu_entry<Spec>;
#if defined(ORDO_BUILD_GPU)
  e.launch_gpu = &launch_gpu_entry<Spec>;
#endif
  return e;
}

template <class Op, class Preset = tune::preset>
inline constexpr auto table = [] {
  auto t = hana::unpack(space<Op, Preset>, [](auto... s) {
    return std::array<entry<Op>, sizeof...(s)>{make_entry<typename decltype(s)::type>()...};
  });
  std::sort(t.begin(), t.end(), [](const entry<Op>& a, const entry<Op>& b) { return a.name.view() < b.name.view(); });
  return t;
}();

/// "<op>.<axis>.<axis>…" from axis names, at run time ("qmv", "q8_0", "r4", "ls32").
template <class... Parts>
std::string spec_name(std::string_view op, Parts... parts) {
  std::string n(op);
  ((n += ".", n += std::string_view(parts)), ...);
  return n;
}

/// The entry named `name` (e.g. "qmv.mxfp4.r4.ls32"); throws std::out_of_range naming it if absent.
template <class Op>
const entry<Op>& find(std::string_view name) {
  const auto& t = table<Op>;
  const auto it = std::lower_bound(t.begin(), t.end(), name, [](const entry<Op>& e, std::string_view n) { return e.name.view() < n; });
  if (it == t.end() || it->name.view() != name)
    throw std::out_of_range(std::string(Op::name) + " spec '" + std::string(name) +
                            "' is not compiled into this build (tune preset " + tune::preset::name +
                            "); `ordo specs` lists the specs that are");
  return *it;
}

/// The entry with these axis names, in the family's parameter order: find<qmv::op>({"q8_0", "r4", "ls32"}).
template <class Op, class... Parts>
const entry<Op>& find_axes(Parts... parts) {
  return find<Op>(spec_name(Op::name, parts...));
}

}  // namespace ordo::registry
