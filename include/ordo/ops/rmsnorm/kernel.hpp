/// The rmsnorm GPU kernel (HIP and CUDA from one source): a CTA of `warps` logical warps, one head
/// per warp; the warp runs the body for all live rows of the pass (the tier), combines each row's
/// partials with the Order's xor butterfly and writes the head. Each lane keeps R accumulators;
/// nothing about the split or the combine depends on R, the grid or the device.
#pragma once
#include <vector>

#include "ordo/gpu/intrinsics.hpp"
#include "ordo/gpu/device_api.hpp"
#include "ordo/ops/rmsnorm/body.hpp"
#include "ordo/ops/rmsnorm/rmsnorm.hpp"

namespace ordo::ops::rmsnorm {

/// Whether spec (R, E) can run p (the launcher checks it; a mismatch is the caller's bug).
template <int R, epilogue E>
constexpr bool can_run(const problem& p) {
  return valid<R, E>(p);
}

#if defined(ORDO_GPU)
inline constexpr int warps_per_cta = 4;

template <int R, class Order, weighting W, epilogue E>
ORDO_GLOBAL void __launch_bounds__(warps_per_cta * 32) rmsnorm_kernel(problem p) {
#if defined(ORDO_DEVICE_PASS)
  const int lane = int(threadIdx.x) % 32;
  const int h = int(blockIdx.x) * warps_per_cta + int(threadIdx.x) / 32;
  if (h >= p.n_heads) return;  // whole warps leave together: the shuffles below stay full-warp
  float acc[R];
#pragma unroll
  for (int i = 0; i < R; ++i) acc[i] = 0.0f;
  accumulate_squares<Order, R>(p, h, lane, acc);
#pragma unroll 1
  for (int i = 0; i < p.rows; ++i) {
    float v = acc[0];
#pragma unroll
    for (int j = 1; j < R; ++j) v = i == j ? acc[j] : v;  // select without dynamic register indexing
#pragma unroll
    for (int step = 0; step < Order::combine_steps; ++step) v = v + gpu::shfl_xor(v, Order::combine_offset(step));
    write_head<W>(p, i, h, lane, inverse_rms(v, p.head_dim, p.eps));
    if constexpr (E == epilogue::q8_32) {
      // The head's f32 outputs must be visible to the lanes that quantize them.
#if defined(ORDO_GPU_CUDA)
      __syncwarp();
#else
      __threadfence_block();  // a wavefront runs in lockstep; the fence orders its memory
#endif
      write_q8_head(p, i, h, lane);
    }
  }
#else
  (void)p;
#endif
}

template <int R, class Order, weighting W, epilogue E>
void launch_gpu(const problem& p, gpu::stream_t stream) {
  const unsigned grid = unsigned((p.n_heads + warps_per_cta - 1) / warps_per_cta);
  rmsnorm_kernel<R, Order, W, E><<<grid, warps_per_cta * 32, 0, gpu::native(stream)>>>(p);
  ORDO_GPU_CHECK_LAUNCH();
}

using launcher = void (*)(const problem&, gpu::stream_t);

/// The launcher of every spec in op::for_each_spec's order (entry i is cpu_entries()[i]'s spec).
/// Provisional, like entries.hpp: kernels/rmsnorm.cpp takes these addresses so the kernels become
/// object code; the generic registry of DESIGN §3a replaces both.
inline std::vector<launcher> gpu_launchers() {
  std::vector<launcher> v;
  op::for_each_spec([&]<int R, class Order, weighting W, epilogue E>() { v.push_back(&launch_gpu<R, Order, W, E>); });
  return v;
}

/// gpu_launchers() built once, defined in kernels/rmsnorm.cpp (GPU builds only).
const std::vector<launcher>& gpu_launcher_table();
#endif

}  // namespace ordo::ops::rmsnorm
