/// rope, the op descriptor: name, axes and validity. Axes, in spec order: tier R (rows per pass)
/// and direction. There is no reduction, hence no Order axis: every output pair depends only on
/// its own two inputs and its row's table, which makes a K-row pass trivially row-exact (E1); the
/// properties still check it, along with the untouched non-rotated dims and padding.
#pragma once
#include <string_view>
#include <utility>

#include "ordo/ops/rope/problem.hpp"
#include "ordo/tier/rows.hpp"

namespace ordo::ops::rope {

struct op {
  static constexpr std::string_view name = "rope";
  using tiers = tier::tier_list<1, 2, 3, 4, 5, 6, 7, 8, 16>;
  static constexpr direction directions[] = {direction::forward, direction::inverse};

  /// Calls fn.template operator()<R, D>() for every spec, in one fixed order (tier, then
  /// direction); the CPU entry list and kernels/rope.cpp both walk it.
  template <class Fn>
  static constexpr void for_each_spec(Fn&& fn) {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((fn.template operator()<tiers::values[I], direction::forward>(),
        fn.template operator()<tiers::values[I], direction::inverse>()),
       ...);
    }(std::make_index_sequence<tiers::values.size()>{});
  }
};

template <int R>
constexpr bool valid(const problem& p) {
  if (p.rows < 1 || p.rows > R || p.n_heads < 1 || p.n_rot < 2 || p.n_rot % 2 != 0 || p.n_rot > p.head_dim)
    return false;
  return p.x_stride >= std::size_t(p.n_heads) * std::size_t(p.head_dim) && p.table_stride >= std::size_t(p.n_rot);
}

}  // namespace ordo::ops::rope
