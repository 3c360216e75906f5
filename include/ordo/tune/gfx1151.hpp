/// Tuning for AMD Strix Halo (gfx1151, RDNA 3.5, wave32, 64 KiB LDS per WGP; hip-gfx1151 preset).
/// Decode-first tiers: 1..8 for decode and MTP verify (2..6 rows), 16 for prefill chunks.
#pragma once
#include "ordo/tune/common.hpp"

namespace ordo::tune {
inline constexpr const char* name = "gfx1151";
using qmv_tiers = tier::tier_list<1, 2, 3, 4, 5, 6, 7, 8, 16>;
using qmv_orders = meta::type_list<order::lane_strided, order::lane_blocked>;
struct qmv_policy {
  static constexpr int warps = 4;
  static constexpr int window_bytes = 4352;
};
}  // namespace ordo::tune
