/// The qmv kernel policy of the NVIDIA Hopper tunings (tune/sm90.hpp, and tune/sm90_check.hpp, CI's
/// compile check at fewer tiers): 8 warps per CTA for the generic kernel (the defaults) and the
/// streaming kernel's fields (ops/qmv/int8_dot_streaming.hpp): 8 warps per CTA, a ring of 3 window
/// stages per warp, 4 weight rows per warp sharing each activation load (2 for MXFP4), launches
/// that overlap their predecessor's tail (ops/qmv/dependent_launch.hpp, weights_before_wait); and
/// the int8 mma kernel's (ops/qmv/int8_mma_tree.hpp) for Q8_0 from 5 rows.
/// Why these values: tune/sm90.hpp.
#pragma once
#include "ordo/ops/qmv/dependent_launch.hpp"
#include "ordo/tune/defaults.hpp"

namespace ordo::tune {
struct sm90_qmv_policy : defaults::qmv::policy {
  static constexpr int streaming_warps = 8;
  static constexpr int streaming_stages = 3;
  static constexpr int streaming_rows_per_warp = 4;
  static constexpr int streaming_rows_per_warp_mxfp4 = 2;
  static constexpr auto streaming_overlap = ops::qmv::launch_overlap::weights_before_wait;
  // The int8 mma kernel for Q8_0 (ops/qmv/int8_mma_tree.hpp): from 5 rows, 8 warps (subtrees) a
  // CTA, 3 ring slots, every warp issuing 2 rows of a unit. Session 16's variants (H100,
  // docs/PERFORMANCE.md): 8/3/8 from 5 rows as fast as dp4a on the head and 8-15% faster on q_b,
  // and faster than 4 slots at 2-8 rows on the head (201.7 against 216.3 us at 8).
  static constexpr int mma_min_rows = 5;
  static constexpr int mma_subtrees = 8;
  static constexpr int mma_stages = 3;
  static constexpr int mma_issuers = 8;
};
}  // namespace ordo::tune
