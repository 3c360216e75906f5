/// The Order's xor butterfly (every lane adds the value of lane ^ offset, offsets 16, 8, 4, 2, 1)
/// for many values at once, with fewer shuffles and the same bits. A plain butterfly on C values
/// costs 5·C shuffles and adds. Here, while the count of live values is even, a step with offset o
/// keeps half of them in each lane: a lane whose bit o is clear keeps the first half, the other
/// lane the second, and each adds its own value to the partner's value of the same index — the
/// very add the plain butterfly does at that lane (float addition is commutative, so the partner
/// computing other + own gets the same bits). After h such steps value idx lives in the lanes whose
/// top h lane bits (bit 4 first) spell idx / (C >> h); the remaining steps are plain butterflies.
/// Every lane holding a value holds the plain butterfly's result, which is the same in every lane.
#pragma once
#include "ordo/gpu/intrinsics.hpp"
#include "ordo/gpu/portability.hpp"

namespace ordo::ops::qmv {

/// Number of leading butterfly steps that halve the live count (C even and > 1, at most 5).
template <int C>
inline constexpr int halving_steps = [] {
  int c = C, h = 0;
  while (h < 5 && c > 1 && c % 2 == 0) c /= 2, ++h;
  return h;
}();

/// Live values per lane after the halving steps.
template <int C>
inline constexpr int halved_count = C >> halving_steps<C>;

#if defined(ORDO_DEVICE_PASS)
namespace detail {
template <int C, int Step, int Live>
ORDO_DEVICE ORDO_FORCEINLINE void butterfly_step(float (&v)[C], int lane) {
  if constexpr (Step < 5) {
    constexpr int offset = 16 >> Step;
    if constexpr (Step < halving_steps<C>) {
      constexpr int half = Live / 2;
      const bool upper = (lane & offset) != 0;
#pragma unroll
      for (int j = 0; j < half; ++j) {
        const float keep = upper ? v[j + half] : v[j];
        const float send = upper ? v[j] : v[j + half];
        v[j] = keep + gpu::shfl_xor(send, offset);
      }
      butterfly_step<C, Step + 1, half>(v, lane);
    } else {
#pragma unroll
      for (int j = 0; j < Live; ++j) v[j] = v[j] + gpu::shfl_xor(v[j], offset);
      butterfly_step<C, Step + 1, Live>(v, lane);
    }
  }
}
}  // namespace detail

/// Runs the 5-step butterfly on v[0..C) of every lane. Afterwards v[j] for j < halved_count<C>
/// holds the butterfly result of value index halved_value_index<C>(lane, j).
template <int C>
ORDO_DEVICE ORDO_FORCEINLINE void halving_butterfly(float (&v)[C], int lane) {
  detail::butterfly_step<C, 0, C>(v, lane);
}
#endif

/// Which value index a lane's j-th remaining value is after halving_butterfly.
template <int C>
ORDO_HD constexpr int halved_value_index(int lane, int j) {
  return (lane >> (5 - halving_steps<C>)) * halved_count<C> + j;
}

}  // namespace ordo::ops::qmv
