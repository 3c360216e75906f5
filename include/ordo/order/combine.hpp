/// order::combine<Order>: the lane combine of every row reduction, written once. It runs the
/// Order's xor steps on a set of 32 lane values: `warp_lanes` on the device (one value per
/// thread, partners by shfl_xor), `host_lanes` in the CPU executor (32 values in an array). Both
/// perform `v = v + partner` in the same step order, so the CPU executor has the device's bits.
/// (The host replay, order/replay.hpp, is deliberately a separate implementation.)
#pragma once
#include "ordo/gpu/intrinsics.hpp"
#include "ordo/order/orders.hpp"

namespace ordo::order {

/// The 32 lane values of one reduction, held by one host thread.
struct host_lanes {
  float v[lanes];
  ORDO_HD void add_partner(int offset) {
    float next[lanes];
    for (int l = 0; l < lanes; ++l) next[l] = v[l] + v[l ^ offset];
    for (int l = 0; l < lanes; ++l) v[l] = next[l];
  }
  ORDO_HD float result() const { return v[0]; }
};

#if defined(ORDO_DEVICE_PASS)
/// This thread's lane value of a warp-wide reduction.
struct warp_lanes {
  float v;
  ORDO_DEVICE ORDO_FORCEINLINE void add_partner(int offset) { v = v + gpu::shfl_xor(v, offset); }
  ORDO_DEVICE ORDO_FORCEINLINE float result() const { return v; }
};
#endif

/// Combines the lanes in Order's tree; returns the reduction (lane 0's value; every lane's on the device).
template <class Order, class Lanes>
ORDO_HD ORDO_FORCEINLINE float combine(Lanes& lanes_values) {
#pragma unroll
  for (int step = 0; step < Order::combine_steps; ++step) lanes_values.add_partner(Order::combine_offset(step));
  return lanes_values.result();
}

}  // namespace ordo::order
