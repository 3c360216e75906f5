/// The defaults every tuning preset inherits (DESIGN §3a): a preset header
/// (include/ordo/tune/<preset>.hpp) declares `struct preset : defaults` with its `name` and only
/// what differs. Per op family:
///   qmv            tiers (tier::tier_list), orders (meta::type_list), policy {warps per CTA,
///                  shared-memory window_bytes per warp}
///   quantize_rows  policy {threads per CTA}
/// A policy only changes speed, never bits; tiers and orders only change which registry entries
/// exist. The build selects one preset with ORDO_TUNE (CMakePresets.json).
#pragma once
#include "ordo/meta/type_list.hpp"
#include "ordo/order/orders.hpp"
#include "ordo/quant/formats.hpp"
#include "ordo/tier/rows.hpp"

namespace ordo::tune {

struct defaults {
  struct qmv {
    // decode 1..8 (MTP verify uses 2..6 rows), 16 for prefill chunks
    using tiers = tier::tier_list<1, 2, 3, 4, 5, 6, 7, 8, 16>;
    using orders = meta::type_list<order::lane_strided, order::lane_blocked>;
    struct policy {
      static constexpr int warps = 8;
      static constexpr int window_bytes = 4352;  // a whole 4096-wide Q8_0 row (4352 B) per window
    };
  };
  struct quantize_rows {
    struct policy {
      static constexpr int threads = 128;
    };
  };
};

}  // namespace ordo::tune
