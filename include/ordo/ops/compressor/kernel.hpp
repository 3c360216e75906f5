/// The compressor GPU kernels (HIP and CUDA from one source). store: element-parallel over the
/// width (a grid of threads_per_cta-thread CTAs), rows rolled. emit: one logical warp runs the
/// four phases of body.hpp with a warp barrier between them; the norm's partials combine by the
/// Order's xor butterfly. Nothing depends on the grid or the device.
#pragma once
#include <vector>

#include "ordo/gpu/device_api.hpp"
#include "ordo/gpu/intrinsics.hpp"
#include "ordo/ops/compressor/body.hpp"
#include "ordo/ops/compressor/compressor.hpp"
#include "ordo/order/combine.hpp"

namespace ordo::ops::compressor {

template <int R, ratio Ra>
constexpr bool can_run(const store_problem& p) {
  return valid<R, Ra>(p);
}

template <ratio Ra, emitted E = emitted::attention>
constexpr bool can_run(const emit_problem& p) {
  return valid<Ra, E>(p);
}

#if defined(ORDO_GPU)
inline constexpr int threads_per_cta = 256;

#if defined(ORDO_DEVICE_PASS)
/// Orders one phase's global writes before the next phase's reads within the warp.
ORDO_DEVICE ORDO_FORCEINLINE void warp_barrier() {
#if defined(ORDO_GPU_CUDA)
  __syncwarp();
#else
  __threadfence_block();  // a wavefront runs in lockstep; the fence orders its memory
#endif
}
#endif

template <int R, ratio Ra>
ORDO_GLOBAL void __launch_bounds__(threads_per_cta) compressor_store_kernel(store_problem p) {
#if defined(ORDO_DEVICE_PASS)
  const int j = int(blockIdx.x) * threads_per_cta + int(threadIdx.x);
  const int step = int(gridDim.x) * threads_per_cta;
#pragma unroll 1
  for (int i = 0; i < p.rows; ++i) write_store_row<Ra>(p, i, j, step);
#else
  (void)p;
#endif
}

template <ratio Ra, class Order, emitted E>
ORDO_GLOBAL void __launch_bounds__(32) compressor_emit_kernel(emit_problem p) {
#if defined(ORDO_DEVICE_PASS)
  const int lane = int(threadIdx.x);
  pool_lane<Ra>(p, lane);
  warp_barrier();
  const rmsnorm::problem norm = norm_view(p);
  float acc[1] = {0.0f};
  rmsnorm::accumulate_squares<Order, 1>(norm, 0, lane, acc);
  order::warp_lanes sum_squares{acc[0]};
  const float inv = rmsnorm::inverse_rms(order::combine<Order>(sum_squares), p.d, p.eps);
  warp_barrier();  // every lane has read the pooled row before any lane overwrites it
  rmsnorm::write_head<rmsnorm::weighting::weighted>(norm, 0, 0, lane, inv);
  warp_barrier();
  rope_lane(p, lane);
  warp_barrier();
  finish_lane<E>(p, lane);
#else
  (void)p;
#endif
}

template <int R, ratio Ra>
void launch_store_gpu(const store_problem& p, gpu::stream_t stream) {
  const unsigned grid = unsigned((p.width + threads_per_cta - 1) / threads_per_cta);
  compressor_store_kernel<R, Ra><<<grid, threads_per_cta, 0, gpu::native(stream)>>>(p);
  ORDO_GPU_CHECK_LAUNCH();
}

template <ratio Ra, class Order, emitted E>
void launch_emit_gpu(const emit_problem& p, gpu::stream_t stream) {
  compressor_emit_kernel<Ra, Order, E><<<1, 32, 0, gpu::native(stream)>>>(p);
  ORDO_GPU_CHECK_LAUNCH();
}

using store_launcher = void (*)(const store_problem&, gpu::stream_t);
using emit_launcher = void (*)(const emit_problem&, gpu::stream_t);

/// The launchers in for_each_store_spec / for_each_emit_spec order (entry i is store_entries()[i]
/// / emit_entries()[i]'s spec).
inline std::vector<store_launcher> store_launchers() {
  std::vector<store_launcher> v;
  op::for_each_store_spec([&]<int R, ratio Ra>() { v.push_back(&launch_store_gpu<R, Ra>); });
  return v;
}
inline std::vector<emit_launcher> emit_launchers() {
  std::vector<emit_launcher> v;
  op::for_each_emit_spec([&]<ratio Ra, class Order, emitted E>() { v.push_back(&launch_emit_gpu<Ra, Order, E>); });
  return v;
}

/// The launcher tables built once, defined in kernels/compressor.cpp (GPU builds only).
const std::vector<store_launcher>& store_launcher_table();
const std::vector<emit_launcher>& emit_launcher_table();
#endif

}  // namespace ordo::ops::compressor
