/// sampling, the op descriptor the registry and the generic drivers read. Axes, in spec order:
/// tier R (rows per pass) and mode (greedy, sample). argmax is an exact reduction: ranks_before
/// (ops/ranking.hpp) is a strict total order, so any split of the vocabulary among threads and any
/// combine tree choose the same token. Mode sample's float sums have the one chunked order of
/// body.hpp, fixed by n_vocab alone; there is no second order to choose, so no Order axis exists.
#pragma once
#include <string_view>

#include "ordo/meta/type_list.hpp"
#include "ordo/ops/sampling/kernel.hpp"
#include "ordo/ops/sampling/problem.hpp"
#include "ordo/spec/axis_name.hpp"
#include "ordo/tier/rows.hpp"

namespace ordo::ops::sampling {

struct op {
  static constexpr std::string_view name = "sampling";
  using problem = sampling::problem;

  /// Decode (1), verify (2–6), prefill chunks (8, 16).
  template <class Preset>
  using axes = meta::type_list<tier::tier_list<1, 2, 3, 4, 5, 6, 7, 8, 16>::as_rows<meta::type_list>,
                               meta::type_list<spec::option<mode::greedy>, spec::option<mode::sample>>>;

  template <class Tier, class M>
  static constexpr bool valid = true;

  template <class Preset, class Tier, class M>
  using kernel = sampling::kernel<Tier::value, M::value>;

  struct info {
    mode picks;
  };
  template <class Tier, class M>
  static constexpr info describe() {
    return {M::value};
  }
};

}  // namespace ordo::ops::sampling
