/// CI's AMD compile check (preset hip-check): the hip_all tuning (tune/hip_all.hpp: 4 warps per
/// CTA, lane_strided) at two of its tiers — 1 (the one-row kernels) and 16 (the largest) — for one
/// RDNA and one CDNA target, so every kernel template compiles under clang HIP for both branches
/// of the arch-dependent code in the time CI has (90 minutes on 2 cores). The binaries to run are
/// hip-gfx1151's or hip-all's.
#pragma once
#include "ordo/tune/defaults.hpp"

namespace ordo::tune {
struct preset : defaults {
  static constexpr const char* name = "hip_check";
  struct qmv : defaults::qmv {
    using tiers = tier::tier_list<1, 16>;
    using orders = meta::type_list<order::lane_strided>;
    struct policy : defaults::qmv::policy {
      static constexpr int warps = 4;
    };
  };
};
inline constexpr const char* name = preset::name;
}  // namespace ordo::tune
