/// Tuning for AMD Strix Halo (gfx1151, RDNA 3.5, wave32, 64 KiB LDS per WGP; hip-gfx1151 preset).
/// Differs from the defaults in qmv's CTA size: 4 warps.
#pragma once
#include "ordo/tune/defaults.hpp"

namespace ordo::tune {
struct preset : defaults {
  static constexpr const char* name = "gfx1151";
  struct qmv : defaults::qmv {
    struct policy : defaults::qmv::policy {
      static constexpr int warps = 4;
    };
  };
};
inline constexpr const char* name = preset::name;
}  // namespace ordo::tune
