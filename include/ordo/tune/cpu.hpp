/// Tuning for the CPU executor build (cpu-* presets): every tier the GPU presets use, both orders,
/// so the property tests cover the union of what any GPU preset ships.
#pragma once
#include "ordo/tune/common.hpp"

namespace ordo::tune {
inline constexpr const char* name = "cpu";
using qmv_tiers = tier::tier_list<1, 2, 3, 4, 5, 6, 7, 8, 16>;
using qmv_orders = meta::type_list<order::lane_strided, order::lane_blocked>;
struct qmv_policy {  // unused by the CPU executor; present so kernels/ compiles the same way
  static constexpr int warps = 1;
  static constexpr int window_bytes = 4096;
};
}  // namespace ordo::tune
