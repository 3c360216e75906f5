/// rope, the op descriptor the registry and the generic drivers read. Axes, in spec order: tier R
/// (rows per pass) and direction. There is no reduction, hence no Order axis: every output pair
/// depends only on its own two inputs and its row's table, which makes a K-row pass trivially
/// row-exact (E1); the properties still check it, along with the untouched non-rotated dims and padding.
#pragma once
#include <string_view>

#include "ordo/meta/type_list.hpp"
#include "ordo/ops/rope/kernel.hpp"
#include "ordo/ops/rope/problem.hpp"
#include "ordo/spec/axis_name.hpp"
#include "ordo/tier/rows.hpp"

namespace ordo::ops::rope {

struct op {
  static constexpr std::string_view name = "rope";
  using problem = rope::problem;

  template <class Preset>
  using axes = meta::type_list<tier::tier_list<1, 2, 3, 4, 5, 6, 7, 8, 16>::as_rows<meta::type_list>,
                               meta::type_list<spec::option<direction::forward>, spec::option<direction::inverse>>>;

  template <class Tier, class D>
  static constexpr bool valid = true;

  template <class Preset, class Tier, class D>
  using kernel = rope::kernel<Tier::value, D::value, policy>;

  struct info {
    direction turn;
  };
  template <class Tier, class D>
  static constexpr info describe() {
    return {D::value};
  }
};

}  // namespace ordo::ops::rope
