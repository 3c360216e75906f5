/// Tuning for the multi-arch AMD build (hip-all: gfx1151 gfx1150 gfx1100 gfx1201 gfx90a gfx942).
/// One binary for wave32 and wave64 parts: the logical 32-lane order runs as half a wave64 on
/// gfx9. Fewer tiers and only the strided order, to keep six-target compile time bounded; the
/// orders are the same, so its bits equal every other preset's for the specs it has.
#pragma once
#include "ordo/tune/defaults.hpp"

namespace ordo::tune {
struct preset : defaults {
  static constexpr const char* name = "hip_all";
  struct qmv : defaults::qmv {
    using tiers = tier::tier_list<1, 2, 4, 8, 16>;
    using orders = meta::type_list<order::lane_strided>;
    struct policy : defaults::qmv::policy {
      static constexpr int warps = 4;
    };
  };
};
inline constexpr const char* name = preset::name;
}  // namespace ordo::tune
