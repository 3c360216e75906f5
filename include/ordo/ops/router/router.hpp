/// router, the op descriptor the registry and the generic drivers read. Axes, in spec order: tier
/// R (rows per pass) and selection. The selection is an exact top-k (a total order: larger score
/// first, then the lower expert id; NaN scores rank below −inf), so it has no reduction order;
/// the only float reduction is the n_used-term weight sum, fixed to the output order (no Order
/// axis to choose).
#pragma once
#include <string_view>

#include "ordo/meta/type_list.hpp"
#include "ordo/ops/router/kernel.hpp"
#include "ordo/ops/router/problem.hpp"
#include "ordo/spec/axis_name.hpp"
#include "ordo/tier/rows.hpp"

namespace ordo::ops::router {

struct op {
  static constexpr std::string_view name = "router";
  using problem = router::problem;

  template <class Preset>
  using axes = meta::type_list<tier::tier_list<1, 2, 3, 4, 5, 6, 7, 8, 16>::as_rows<meta::type_list>,
                               meta::type_list<spec::option<selection::top_k>, spec::option<selection::hash>>>;

  template <class Tier, class S>
  static constexpr bool valid = true;

  template <class Preset, class Tier, class S>
  using kernel = router::kernel<Tier::value, S::value>;

  struct info {
    selection chooses;
  };
  template <class Tier, class S>
  static constexpr info describe() {
    return {S::value};
  }
};

}  // namespace ordo::ops::router
