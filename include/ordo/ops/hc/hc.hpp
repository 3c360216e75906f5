/// hc, the op descriptor the registry and the generic drivers read. Axes, in spec order: tier R
/// (rows per pass) and stage. No stage has an Order axis: every sum has 4 terms in a fixed
/// sequence (a or b = 0..3, left to right), the Sinkhorn is sequential per row, and the long
/// reductions (the flat norm and the mixes) are rmsnorm's and qmv's (docs/engine.md A1–A2). The
/// tier only caps the rows of a pass; each row's arithmetic is the one-row arithmetic (E1).
#pragma once
#include <string_view>

#include "ordo/meta/type_list.hpp"
#include "ordo/ops/hc/kernel.hpp"
#include "ordo/ops/hc/problem.hpp"
#include "ordo/spec/axis_name.hpp"
#include "ordo/tier/rows.hpp"

namespace ordo::ops::hc {

struct op {
  static constexpr std::string_view name = "hc";
  using problem = hc::problem;

  /// Decode (1), verify (2–6), prefill chunks (8, 16).
  template <class Preset>
  using axes = meta::type_list<tier::tier_list<1, 2, 3, 4, 5, 6, 7, 8, 16>::as_rows<meta::type_list>,
                               meta::type_list<spec::option<stage::split>, spec::option<stage::weighted_sum>,
                                               spec::option<stage::post>, spec::option<stage::collapse>>>;

  template <class Tier, class S>
  static constexpr bool valid = true;

  template <class Preset, class Tier, class S>
  using kernel = hc::kernel<Tier::value, S::value>;

  struct info {
    stage part;
  };
  template <class Tier, class S>
  static constexpr info describe() {
    return {S::value};
  }
};

}  // namespace ordo::ops::hc
