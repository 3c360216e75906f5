/// compressor, the op descriptor: name, axes and validity of its two calls. store: tier R × ratio
/// (element-wise, one rounding per score; no reduction). emit: ratio × Order (one emission per
/// call, made per row in chronological order by the layer step; the Order is the lane split and
/// combine of the compressor norm's Σx², run by rmsnorm's phases). The pooling of a column is a
/// fixed sequential loop over its window entries (lane A rows ascending, then lane B rows
/// ascending), so a column's bits depend on nothing but the ring.
#pragma once
#include <cstddef>
#include <string_view>
#include <utility>

#include "ordo/ops/compressor/problem.hpp"
#include "ordo/order/orders.hpp"
#include "ordo/tier/rows.hpp"

namespace ordo::ops::compressor {

struct op {
  static constexpr std::string_view name = "compressor";
  /// Decode (1), verify (2–6), prefill chunks (8, 16): the store's tiers.
  using tiers = tier::tier_list<1, 2, 3, 4, 5, 6, 7, 8, 16>;
  static constexpr ratio ratios[] = {ratio::r4, ratio::r128};

  /// Calls fn.template operator()<R, Ra>() for every store spec (tier, then ratio).
  template <class Fn>
  static constexpr void for_each_store_spec(Fn&& fn) {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((fn.template operator()<tiers::values[I], ratio::r4>(), fn.template operator()<tiers::values[I], ratio::r128>()),
       ...);
    }(std::make_index_sequence<tiers::values.size()>{});
  }

  /// Calls fn.template operator()<Ra, Order, E>() for every emit spec (ratio, then order, then
  /// the rows it writes; ls32 is the shipped order, lb32 exists for P5 non-vacuity; indexer rows
  /// only on ratio-4 layers, ls32 only: the FP4 step absorbs the norm's order — lb32 gave the ls32
  /// bits on 200 of 200 DS4-sized rows — so a second order there would be a vacuous P5; the
  /// phases it shares with the attention emission are P5-checked there). docs/decisions.md D15
  /// says why the indexer emission is an option here.
  template <class Fn>
  static constexpr void for_each_emit_spec(Fn&& fn) {
    fn.template operator()<ratio::r4, order::lane_strided, emitted::attention>();
    fn.template operator()<ratio::r4, order::lane_blocked, emitted::attention>();
    fn.template operator()<ratio::r128, order::lane_strided, emitted::attention>();
    fn.template operator()<ratio::r128, order::lane_blocked, emitted::attention>();
    fn.template operator()<ratio::r4, order::lane_strided, emitted::indexer>();
  }
};

template <int R, ratio Ra>
constexpr bool valid(const store_problem& p) {
  if (p.rows < 1 || p.rows > R || p.width < 1 || p.first_position < 0) return false;
  if (p.ring_rows < p.rows || p.ring_rows % ratio_of(Ra) != 0) return false;
  return p.kv && p.score && p.ape && p.kv_ring && p.score_ring && p.in_stride >= std::size_t(p.width) &&
         p.ring_stride >= std::size_t(p.width);
}

/// The emit spec (Ra, E) takes p: a complete window, a ring that holds windows w − 1 and w, a RoPE
/// tail that fits; the indexer's Hadamard needs a power-of-two row.
template <ratio Ra, emitted E = emitted::attention>
constexpr bool valid(const emit_problem& p) {
  const int r = ratio_of(Ra);
  if constexpr (E == emitted::indexer)
    if (Ra != ratio::r4 || p.d < 1 || (p.d & (p.d - 1)) != 0) return false;
  if (p.d < 1 || p.n_rot < 0 || p.n_rot % 2 != 0 || p.n_rot > p.d) return false;
  if (p.position < r - 1 || (p.position + 1) % r != 0) return false;
  if (p.ring_rows % r != 0 || p.ring_rows < (Ra == ratio::r4 ? 2 * r : r)) return false;
  return p.kv_ring && p.score_ring && p.norm && p.out && (p.n_rot == 0 || p.cos_sin) &&
         p.ring_stride >= std::size_t(coff_of(Ra)) * std::size_t(p.d);
}

}  // namespace ordo::ops::compressor
