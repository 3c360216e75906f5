/// indexer, the op descriptor the registry and the generic drivers read. Axes, in spec order:
/// tier R, Order (the q·key lane split; the head sum runs h ascending by fmaf from +0) and
/// selector ("indexer.r4.ls32.hier"). The top-k is exact in any combine order (a strict total
/// order), so its only rule is the tie rule; the hierarchical and radix selectors are the flat
/// selection (select.hpp, select_radix.hpp), schedule choices for long histories.
#pragma once
#include <string_view>

#include "ordo/meta/type_list.hpp"
#include "ordo/ops/indexer/kernel.hpp"
#include "ordo/ops/indexer/problem.hpp"
#include "ordo/order/orders.hpp"
#include "ordo/spec/axis_name.hpp"
#include "ordo/tier/rows.hpp"

namespace ordo::ops::indexer {

struct op {
  static constexpr std::string_view name = "indexer";
  using problem = indexer::problem;
  using shipped_order = score_order<order::lane_strided>;

  /// Decode (1), verify (2–6), prefill chunks (8, 16) × the shipped order × every selector.
  template <class Preset>
  using axes = meta::type_list<tier::tier_list<1, 2, 3, 4, 5, 6, 7, 8, 16>::as_rows<meta::type_list>,
                               meta::type_list<shipped_order>,
                               meta::type_list<spec::option<selector::flat>, spec::option<selector::hierarchical>,
                                               spec::option<selector::radix>>>;

  template <class Tier, class Order, class S>
  static constexpr bool valid = true;

  template <class Preset, class Tier, class Order, class S>
  using kernel = indexer::kernel<Tier::value, Order, S::value>;

  struct info {
    selector selects;
  };
  template <class Tier, class Order, class S>
  static constexpr info describe() {
    return {S::value};
  }
};

}  // namespace ordo::ops::indexer
