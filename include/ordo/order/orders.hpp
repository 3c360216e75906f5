/// Reduction orders. An order fixes, for a reduction over `nb` dot blocks split among a logical
/// warp of 32 lanes: which blocks each lane owns, the sequence in which a lane adds their terms
/// (`acc = acc + term`, starting from +0.0f), and the lane-combine tree. It depends on nothing
/// else — not on the tier, the device, or how the kernel stages memory — which is what makes a
/// K-row kernel give each row the bits of the one-row kernel (E1) on every backend (E2).
///
/// This header is the kernel-facing side (lane ranges, combine offsets). order/replay.hpp states
/// each order a second time, as a block → lane map and a tree, and replays it on the host from
/// that statement alone, so a wrong range or combine here is caught by P2 (DESIGN §3, §7).
#pragma once
#include <string_view>

#include "ordo/gpu/portability.hpp"

namespace ordo::order {

inline constexpr int lanes = 32;

/// Blocks [begin, end) with stride `step` that a lane owns inside a window of blocks.
struct lane_range {
  int begin, end, step;
};

/// lane l owns blocks l, l+32, l+64, … in ascending order; lanes combine by an xor butterfly with
/// offsets 16, 8, 4, 2, 1 (every lane ends with the same sum). Consecutive lanes read consecutive
/// blocks, so a warp's loads are contiguous.
struct lane_strided {
  static constexpr std::string_view name = "ls32";
  /// The lane's blocks among [w0, w1) of a reduction of nb blocks (w0, w1 multiples of 32, or w1 == nb).
  ORDO_HD static constexpr lane_range range(int lane, int /*nb*/, int w0, int w1) {
    return {w0 + lane, w1, lanes};
  }
  static constexpr int combine_steps = 5;
  ORDO_HD static constexpr int combine_offset(int step) { return 16 >> step; }  // 16, 8, 4, 2, 1
};

/// lane l owns the contiguous run of blocks [l*c, (l+1)*c) with c = ceil(nb/32), ascending; the
/// same xor butterfly. Exists as a genuinely different order (P5 non-vacuity) and for formats
/// whose blocks a lane would rather read contiguously.
struct lane_blocked {
  static constexpr std::string_view name = "lb32";
  ORDO_HD static constexpr lane_range range(int lane, int nb, int w0, int w1) {
    const int per_lane = (nb + lanes - 1) / lanes;
    const int lo = lane * per_lane, hi = lo + per_lane < nb ? lo + per_lane : nb;
    return {lo > w0 ? lo : w0, hi < w1 ? hi : w1, 1};
  }
  static constexpr int combine_steps = 5;
  ORDO_HD static constexpr int combine_offset(int step) { return 16 >> step; }
};

}  // namespace ordo::order
