/// compressor, the op descriptors the registry and the generic drivers read. The family makes two
/// calls with different problems, so it has two descriptors (registry::entry<Op> runs one problem
/// type), listed side by side in all_ops.hpp:
///   store_op "compressor.store": tier R × ratio. Element-wise (a copy and one rounding per
///     score); no reduction, so no Order axis.
///   emit_op "compressor.emit": ratio × Order × emitted rows. One emission per call, made per row
///     in chronological order by the layer step (no tier: the call has one row). The Order is the
///     lane split and combine of the compressor norm's Σx², run by rmsnorm's phases; the pooling of
///     a column is a fixed sequential loop over its window entries (lane A rows ascending, then
///     lane B rows ascending), so a column's bits depend on nothing but the ring. ls32 is the
///     shipped order, lb32 exists for P5 non-vacuity. Indexer rows exist on ratio-4 layers only,
///     at ls32 only: the FP4 step absorbs the norm's order (lb32 gave the ls32 bits on 200 of 200
///     DS4-sized rows), so a second order there would be a vacuous P5; the phases it shares with
///     the attention emission are P5-checked there. docs/decisions.md D15 says why the indexer
///     emission is an option here.
#pragma once
#include <string_view>
#include <type_traits>

#include "ordo/meta/type_list.hpp"
#include "ordo/ops/compressor/kernel.hpp"
#include "ordo/ops/compressor/problem.hpp"
#include "ordo/order/orders.hpp"
#include "ordo/spec/axis_name.hpp"
#include "ordo/tier/rows.hpp"

namespace ordo::ops::compressor {

using ratio_axis = meta::type_list<spec::option<ratio::r4>, spec::option<ratio::r128>>;

struct store_op {
  static constexpr std::string_view name = "compressor.store";
  using problem = store_problem;
  /// Decode (1), verify (2–6), prefill chunks (8, 16).
  using tiers = tier::tier_list<1, 2, 3, 4, 5, 6, 7, 8, 16>;

  template <class Preset>
  using axes = meta::type_list<tiers::as_rows<meta::type_list>, ratio_axis>;

  template <class Tier, class Ra>
  static constexpr bool valid = true;

  template <class Preset, class Tier, class Ra>
  using kernel = store_kernel<Tier::value, Ra::value>;

  struct info {
    ratio geometry;
  };
  template <class Tier, class Ra>
  static constexpr info describe() {
    return {Ra::value};
  }
};

struct emit_op {
  static constexpr std::string_view name = "compressor.emit";
  using problem = emit_problem;
  using shipped_order = order::lane_strided;

  template <class Preset>
  using axes = meta::type_list<ratio_axis, meta::type_list<order::lane_strided, order::lane_blocked>,
                               meta::type_list<spec::option<emitted::attention>, spec::option<emitted::indexer>>>;

  template <class Ra, class Order, class E>
  static constexpr bool valid =
      E::value == emitted::attention || (Ra::value == ratio::r4 && std::is_same_v<Order, shipped_order>);

  template <class Preset, class Ra, class Order, class E>
  using kernel = emit_kernel<Ra::value, Order, E::value>;

  struct info {
    ratio geometry;
    emitted rows;
  };
  template <class Ra, class Order, class E>
  static constexpr info describe() {
    return {Ra::value, E::value};
  }
};

}  // namespace ordo::ops::compressor
