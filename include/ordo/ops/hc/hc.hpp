/// hc, the op descriptor: name, axes and validity. Axes, in spec order: tier R (rows per pass) and
/// stage. No stage has an Order axis: every sum has 4 terms in a fixed sequence (a or b = 0..3,
/// left to right), the Sinkhorn is sequential per row, and the long reductions (the flat norm and
/// the mixes) are rmsnorm's and qmv's (docs/engine.md A1–A2). The tier only caps the rows of a
/// pass; each row's arithmetic is the one-row arithmetic (E1).
#pragma once
#include <cstddef>
#include <string_view>
#include <utility>

#include "ordo/ops/hc/problem.hpp"
#include "ordo/tier/rows.hpp"

namespace ordo::ops::hc {

struct op {
  static constexpr std::string_view name = "hc";
  /// Decode (1), verify (2–6), prefill chunks (8, 16).
  using tiers = tier::tier_list<1, 2, 3, 4, 5, 6, 7, 8, 16>;
  static constexpr stage stages[] = {stage::split, stage::weighted_sum, stage::post, stage::collapse};

  /// Calls fn.template operator()<R, S>() for every spec, in one fixed order (tier, then stage);
  /// the CPU entry list and the GPU instantiation (kernels/hc.cpp) both walk it.
  template <class Fn>
  static constexpr void for_each_spec(Fn&& fn) {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((fn.template operator()<tiers::values[I], stage::split>(),
        fn.template operator()<tiers::values[I], stage::weighted_sum>(),
        fn.template operator()<tiers::values[I], stage::post>(),
        fn.template operator()<tiers::values[I], stage::collapse>()),
       ...);
    }(std::make_index_sequence<tiers::values.size()>{});
  }
};

/// Whether a problem fits spec (R, S): rows within the tier, strides that hold a row, the
/// pointers the stage uses.
template <int R, stage S>
constexpr bool valid(const problem& p) {
  if (p.rows < 1 || p.rows > R) return false;
  const std::size_t flat = std::size_t(n_streams) * std::size_t(p.n_embd > 0 ? p.n_embd : 0);
  const bool split_ok = p.split != nullptr && p.split_stride >= std::size_t(n_split);
  const bool state_ok = p.n_embd >= 1 && p.h != nullptr && p.h_stride >= flat;
  const bool x_ok = p.x != nullptr && p.x_stride >= std::size_t(p.n_embd);
  const auto mix_ok = [&](int count) {
    return p.mix != nullptr && p.mix_stride >= std::size_t(count) && p.scale != nullptr && p.base != nullptr;
  };
  if constexpr (S == stage::split) return mix_ok(n_split) && split_ok;
  if constexpr (S == stage::weighted_sum) return split_ok && state_ok && x_ok;
  if constexpr (S == stage::post)
    return split_ok && state_ok && p.f != nullptr && p.f_stride >= std::size_t(p.n_embd) && p.h_new != nullptr &&
           p.h_new_stride >= flat;
  return mix_ok(n_head_mix) && state_ok && x_ok;
}

}  // namespace ordo::ops::hc
