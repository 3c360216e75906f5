/// What a tuning preset header (include/ordo/tune/<preset>.hpp) declares, in namespace ordo::tune:
///   name          — the preset's name
///   qmv_tiers     — tier::tier_list of qmv row tiers compiled into the registry
///   qmv_orders    — meta::type_list of reduction orders compiled into the registry
///   qmv_policy    — kernel policy: `warps` per CTA, shared-memory `window_bytes` per warp
/// A policy only changes speed, never bits (DESIGN §3); tiers and orders only change which
/// registry entries exist. The build selects one header with ORDO_TUNE (CMakePresets.json).
#pragma once
#include "ordo/meta/type_list.hpp"
#include "ordo/order/orders.hpp"
#include "ordo/quant/formats.hpp"
#include "ordo/tier/rows.hpp"
