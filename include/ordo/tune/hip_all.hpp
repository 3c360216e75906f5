/// Tuning for the multi-arch AMD build (hip-all: gfx1151 gfx1150 gfx1100 gfx1201 gfx90a gfx942).
/// One binary for wave32 and wave64 parts: the logical 32-lane order runs as half a wave64 on
/// gfx9. Fewer tiers than a single-target preset to keep six-target compile time bounded; the
/// orders are the same, so its bits equal every other preset's for the specs it has.
#pragma once
#include "ordo/tune/common.hpp"

namespace ordo::tune {
inline constexpr const char* name = "hip_all";
using qmv_tiers = tier::tier_list<1, 2, 4, 8, 16>;
using qmv_orders = meta::type_list<order::lane_strided>;
struct qmv_policy {
  static constexpr int warps = 4;
  static constexpr int window_bytes = 4352;
};
}  // namespace ordo::tune
