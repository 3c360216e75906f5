/// kv_store, the op descriptor the registry and the generic drivers read. The only axis is the
/// tier R (rows per pass). There is no reduction order to choose: the FP8 block amax is a max
/// (exact in any order) and every stored value is computed alone, so a row's bits are the
/// one-row bits by construction.
#pragma once
#include <string_view>

#include "ordo/meta/type_list.hpp"
#include "ordo/ops/kv_store/kernel.hpp"
#include "ordo/ops/kv_store/problem.hpp"
#include "ordo/tier/rows.hpp"

namespace ordo::ops::kv_store {

struct op {
  static constexpr std::string_view name = "kv_store";
  using problem = kv_store::problem;

  /// Decode (1), verify (2–6), prefill chunks (8, 16).
  template <class Preset>
  using axes = meta::type_list<tier::tier_list<1, 2, 3, 4, 5, 6, 7, 8, 16>::as_rows<meta::type_list>>;

  template <class Tier>
  static constexpr bool valid = true;

  template <class Preset, class Tier>
  using kernel = kv_store::kernel<Tier::value>;

  struct info {};  // the tier is the entry's own field
  template <class Tier>
  static constexpr info describe() {
    return {};
  }
};

}  // namespace ordo::ops::kv_store
