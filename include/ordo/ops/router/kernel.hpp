/// The router GPU kernel: one CTA per pass, one logical warp per live row. Each selection round
/// combines the lanes' proposals with an xor butterfly of (key, id) pairs under ranks_before —
/// exact whatever the tree, since it is a strict total order — and lane 0 records the winner and
/// finally writes the weights (the n_used-term sum stays on one lane, in output order).
#pragma once
#include <vector>

#include "ordo/gpu/device_api.hpp"
#include "ordo/gpu/intrinsics.hpp"
#include "ordo/numeric/conversions.hpp"
#include "ordo/ops/router/body.hpp"
#include "ordo/ops/router/router.hpp"

namespace ordo::ops::router {

template <int R, selection S>
constexpr bool can_run(const problem& p) {
  return valid<R, S>(p);
}

#if defined(ORDO_GPU)
template <int R, selection S>
ORDO_GLOBAL void __launch_bounds__(R * 32) router_kernel(problem p) {
#if defined(ORDO_DEVICE_PASS)
  const int i = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  if (i >= p.rows) return;  // whole warps leave together
  if constexpr (S == selection::hash) {
    if (lane == 0) write_hash_experts(p, i);
  } else {
    int chosen[max_used];
#pragma unroll 1
    for (int k = 0; k < p.n_used; ++k) {
      candidate best = lane_best(p, i, lane, chosen, k);
#pragma unroll
      for (int offset = 16; offset >= 1; offset /= 2) {
        // The id travels as the bits of a float: a shuffle moves registers, it does not round.
        const candidate other{gpu::shfl_xor(best.key, offset),
                              int(numeric::detail::bits_of(gpu::shfl_xor(numeric::detail::float_of(std::uint32_t(best.id)), offset)))};
        if (ranks_before(other, best)) best = other;
      }
      chosen[k] = best.id;  // every lane holds the same winner
      if (lane == 0) p.experts[std::size_t(i) * p.out_stride + std::size_t(k)] = best.id;
    }
  }
  if (lane == 0) write_weights(p, i);
#else
  (void)p;
#endif
}

template <int R, selection S>
void launch_gpu(const problem& p, gpu::stream_t stream) {
  router_kernel<R, S><<<1, R * 32, 0, gpu::native(stream)>>>(p);
  ORDO_GPU_CHECK_LAUNCH();
}

using launcher = void (*)(const problem&, gpu::stream_t);

/// The launcher of every spec in op::for_each_spec's order (entry i is cpu_entries()[i]'s spec).
/// Provisional, like entries.hpp: kernels/router.cpp takes these addresses so the kernels become
/// object code; the generic registry of DESIGN §3a replaces both.
inline std::vector<launcher> gpu_launchers() {
  std::vector<launcher> v;
  op::for_each_spec([&]<int R, selection S>() { v.push_back(&launch_gpu<R, S>); });
  return v;
}

/// gpu_launchers() built once, defined in kernels/router.cpp (GPU builds only).
const std::vector<launcher>& gpu_launcher_table();
#endif

}  // namespace ordo::ops::router
