/// CI's NVIDIA compile check (preset cuda-check): the sm90 tuning (tune/sm90.hpp: the same kernel
/// policy, both orders) at three of its tiers — 1 (the one-row kernels), 3 (an odd row count) and
/// 16 (the largest) — so every kernel template compiles under nvcc in a third of the time; CI's
/// 90 minutes on 2 cores do not hold the full sm90 build with the other checks. The binary to run
/// is cuda-sm90's.
#pragma once
#include "ordo/tune/sm90_policy.hpp"

namespace ordo::tune {
struct preset : defaults {
  static constexpr const char* name = "sm90_check";
  struct qmv : defaults::qmv {
    using tiers = tier::tier_list<1, 3, 16>;
    using policy = sm90_qmv_policy;
  };
};
inline constexpr const char* name = preset::name;
}  // namespace ordo::tune
