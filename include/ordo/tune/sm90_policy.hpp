/// The qmv kernel policy of the NVIDIA Hopper tunings (tune/sm90.hpp, and tune/sm90_check.hpp, CI's
/// compile check at fewer tiers): 8 warps per CTA for the generic kernel (the defaults) and the
/// streaming kernel's fields (ops/qmv/int8_dot_streaming.hpp): 8 warps per CTA, a ring of 3 window
/// stages per warp, 4 weight rows per warp sharing each activation load (2 for MXFP4), launches
/// that overlap their predecessor's tail (ops/qmv/dependent_launch.hpp, weights_before_wait).
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
};
}  // namespace ordo::tune
