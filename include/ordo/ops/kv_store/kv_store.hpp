/// kv_store, the op descriptor: name, axes and validity. The only axis is the tier R (rows per
/// pass). There is no reduction order to choose: the FP8 block amax is a max (exact in any order)
/// and every stored value is computed alone, so a row's bits are the one-row bits by construction.
#pragma once
#include <cstddef>
#include <string_view>
#include <utility>

#include "ordo/ops/kv_store/problem.hpp"
#include "ordo/tier/rows.hpp"

namespace ordo::ops::kv_store {

struct op {
  static constexpr std::string_view name = "kv_store";
  /// Decode (1), verify (2–6), prefill chunks (8, 16).
  using tiers = tier::tier_list<1, 2, 3, 4, 5, 6, 7, 8, 16>;

  /// Calls fn.template operator()<R>() for every spec, in tier order; the CPU entry list and
  /// kernels/kv_store.cpp both walk it.
  template <class Fn>
  static constexpr void for_each_spec(Fn&& fn) {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (fn.template operator()<tiers::values[I]>(), ...);
    }(std::make_index_sequence<tiers::values.size()>{});
  }
};

template <int R>
constexpr bool valid(const problem& p) {
  if (p.rows < 1 || p.rows > R || p.head_dim < 1 || p.n_rope_free < 0 || p.n_rope_free > p.head_dim) return false;
  if (p.kv == nullptr || p.ring == nullptr || p.first_position < 0 || p.ring_rows < p.rows) return false;
  return p.kv_stride >= std::size_t(p.head_dim) && p.ring_stride >= std::size_t(p.head_dim);
}

}  // namespace ordo::ops::kv_store
