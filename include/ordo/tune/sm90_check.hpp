/// CI's NVIDIA compile check (preset cuda-check): the sm90 tuning (tune/sm90.hpp: the same kernel
/// policy, both orders) at three of its tiers — 1 (the one-row kernels), 3 (an odd row count) and
/// 16 (the largest) — so every kernel template compiles under nvcc in a third of the time; CI's
/// 90 minutes on 2 cores do not hold the full sm90 build with the other checks. The binary to run
/// is cuda-sm90's. The policy fields repeat sm90.hpp's on purpose: a tuning header defines the one
/// `ordo::tune::preset`, so this one cannot include that one.
#pragma once
#include "ordo/ops/qmv/dependent_launch.hpp"
#include "ordo/tune/defaults.hpp"

namespace ordo::tune {
struct preset : defaults {
  static constexpr const char* name = "sm90_check";
  struct qmv : defaults::qmv {
    using tiers = tier::tier_list<1, 3, 16>;
    struct policy : defaults::qmv::policy {
      static constexpr int streaming_warps = 8;
      static constexpr int streaming_stages = 3;
      static constexpr int streaming_rows_per_warp = 4;
      static constexpr int streaming_rows_per_warp_mxfp4 = 2;
      static constexpr auto streaming_overlap = ops::qmv::launch_overlap::weights_before_wait;
    };
  };
};
inline constexpr const char* name = preset::name;
}  // namespace ordo::tune
