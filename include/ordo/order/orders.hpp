/// Reduction orders. An order fixes, for a reduction over `nb` dot blocks split among a logical
/// warp of 32 lanes: which blocks each lane owns, the sequence in which a lane adds their terms
/// (`acc = acc + term`, starting from +0.0f), and the lane-combine tree. It depends on nothing
/// else — not on the tier, the device, or how the kernel stages memory — which is what makes a
/// K-row kernel give each row the bits of the one-row kernel (E1) on every backend (E2).
///
/// Each order has a host replay (ordo::order::replay) that performs the same float operations in
/// the same sequence from a plain array of block terms, independent of any kernel code.
#pragma once
#include <array>
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

/// Host replay: the order's result from the terms of all nb blocks, computed directly from the
/// order's definition (whole-range ownership, then the butterfly on 32 partial sums).
template <class Order>
float replay(const float* terms, int nb) {
  std::array<float, lanes> partial{};
  for (int lane = 0; lane < lanes; ++lane) {
    const lane_range r = Order::range(lane, nb, 0, nb);
    float acc = 0.0f;
    for (int b = r.begin; b < r.end; b += r.step) acc = acc + terms[b];
    partial[lane] = acc;
  }
  for (int step = 0; step < Order::combine_steps; ++step) {
    const int offset = Order::combine_offset(step);
    std::array<float, lanes> next{};
    for (int lane = 0; lane < lanes; ++lane) next[lane] = partial[lane] + partial[lane ^ offset];
    partial = next;
  }
  return partial[0];
}

}  // namespace ordo::order
