/// The attention GPU kernels (HIP and CUDA from one source): one logical warp per (query row, head)
/// — and per chunk in the split schedule. z_j is the lanes' partial dots combined by the Order's
/// xor butterfly (every lane ends with the same z_j, so every lane keeps the same max and den);
/// lane l owns dims l, l+32, … of acc. The whole kernel walks the chunks in order; the split
/// schedule is three launches (chunk maxima, chunk sums, the combine in chunk order) through the
/// workspace. Nothing about the arithmetic depends on R, the grid or the device.
#pragma once
#include <vector>

#include "ordo/gpu/device_api.hpp"
#include "ordo/gpu/intrinsics.hpp"
#include "ordo/order/combine.hpp"
#include "ordo/ops/attention/attention.hpp"
#include "ordo/ops/attention/body.hpp"

namespace ordo::ops::attention {

/// Whether spec (R, S) can run p (the launcher checks it; a mismatch is the caller's bug).
template <int R, schedule S>
constexpr bool can_run(const problem& p) {
  return valid<R, S>(p);
}

#if defined(ORDO_GPU)
inline constexpr int warps_per_cta = 4;
inline constexpr int dims_per_lane = max_head_dim / order::lanes;

#if defined(ORDO_DEVICE_PASS)
/// z_j on the device: this lane's partial dot, the Order's butterfly, ×τ.
template <class Order>
struct warp_logit {
  const problem& p;
  int lane;
  ORDO_DEVICE float operator()(const float* q, const float* row) const {
    order::warp_lanes v{lane_dot<Order>(q, row, p.head_dim, lane)};
    order::combine<typename Order::dot_order>(v);
    return logit(v.v, p.scale);
  }
};

/// acc_c += e·row on this lane's dims.
struct lane_accumulate {
  float (&acc)[dims_per_lane];
  int n, lane;
  ORDO_DEVICE void operator()(float e, const float* row) const { accumulate_lane(acc, e, row, n, lane); }
};

/// This warp's (row, head), or false when the warp is past the heads (whole warps leave together).
ORDO_DEVICE ORDO_FORCEINLINE bool warp_head(const problem& p, int& i, int& h, int& lane) {
  lane = int(threadIdx.x) % order::lanes;
  h = int(blockIdx.x) * warps_per_cta + int(threadIdx.x) / order::lanes;
  i = int(blockIdx.y);
  return h < p.n_heads && i < p.rows;
}

/// out = acc / den on this lane's dims.
ORDO_DEVICE ORDO_FORCEINLINE void write_lane(const problem& p, int i, int h, int lane, const float (&acc)[dims_per_lane],
                                             float den) {
  float* out = out_head(p, i, h);
#pragma unroll
  for (int k = 0; k < dims_per_lane; ++k) {
    const int d = lane + order::lanes * k;
    if (d < p.head_dim) out[d] = acc[k] / den;
  }
}
#endif

template <int R, class Order, visibility V>
ORDO_GLOBAL void __launch_bounds__(warps_per_cta * 32) attention_whole_kernel(problem p) {
#if defined(ORDO_DEVICE_PASS)
  int i, h, lane;
  if (!warp_head(p, i, h, lane)) return;
  const warp_logit<Order> z{p, lane};
  float m = p.sinks[h];
#pragma unroll 1
  for (int c = 0; c < row_chunks<Order>(p, i); ++c) m = larger(m, chunk_max<Order, V>(p, i, h, c, z));
  float den = weight_of(p.sinks[h], m);
  float acc[dims_per_lane], acc_c[dims_per_lane];
#pragma unroll
  for (int k = 0; k < dims_per_lane; ++k) acc[k] = 0.0f;
#pragma unroll 1
  for (int c = 0; c < row_chunks<Order>(p, i); ++c) {
#pragma unroll
    for (int k = 0; k < dims_per_lane; ++k) acc_c[k] = 0.0f;
    den = den + chunk_sums<Order, V>(p, i, h, c, m, z, lane_accumulate{acc_c, p.head_dim, lane});
#pragma unroll
    for (int k = 0; k < dims_per_lane; ++k) acc[k] = acc[k] + acc_c[k];
  }
  write_lane(p, i, h, lane, acc, den);
#else
  (void)p;
#endif
}

/// Split phase 1: chunk blockIdx.z's max into its slot.
template <int R, class Order, visibility V>
ORDO_GLOBAL void __launch_bounds__(warps_per_cta * 32) attention_chunk_max_kernel(problem p) {
#if defined(ORDO_DEVICE_PASS)
  int i, h, lane;
  const int c = int(blockIdx.z);
  if (!warp_head(p, i, h, lane) || c >= row_chunks<Order>(p, i)) return;
  const float m = chunk_max<Order, V>(p, i, h, c, warp_logit<Order>{p, lane});
  if (lane == 0) workspace_slot<Order>(p, i, h, c)[0] = m;
#else
  (void)p;
#endif
}

/// The head's max from phase 1's slots: s_h, then chunk 0, 1, … (as the whole kernel takes it).
template <class Order>
ORDO_HD ORDO_FORCEINLINE float gathered_max(const problem& p, int i, int h) {
  float m = p.sinks[h];
#pragma unroll 1
  for (int k = 0; k < row_chunks<Order>(p, i); ++k) m = larger(m, workspace_slot<Order>(p, i, h, k)[0]);
  return m;
}

/// Split phase 2: chunk blockIdx.z's den_c and acc_c into its slot.
template <int R, class Order, visibility V>
ORDO_GLOBAL void __launch_bounds__(warps_per_cta * 32) attention_chunk_sums_kernel(problem p) {
#if defined(ORDO_DEVICE_PASS)
  int i, h, lane;
  const int c = int(blockIdx.z);
  if (!warp_head(p, i, h, lane) || c >= row_chunks<Order>(p, i)) return;
  const float m = gathered_max<Order>(p, i, h);
  float acc_c[dims_per_lane];
#pragma unroll
  for (int k = 0; k < dims_per_lane; ++k) acc_c[k] = 0.0f;
  const float den = chunk_sums<Order, V>(p, i, h, c, m, warp_logit<Order>{p, lane}, lane_accumulate{acc_c, p.head_dim, lane});
  float* slot = workspace_slot<Order>(p, i, h, c);
  if (lane == 0) slot[1] = den;
#pragma unroll
  for (int k = 0; k < dims_per_lane; ++k) {
    const int d = lane + order::lanes * k;
    if (d < p.head_dim) slot[2 + d] = acc_c[k];
  }
#else
  (void)p;
#endif
}

/// Split phase 3: den and acc over the chunks in chunk order, then the output.
template <int R, class Order, visibility V>
ORDO_GLOBAL void __launch_bounds__(warps_per_cta * 32) attention_combine_kernel(problem p) {
#if defined(ORDO_DEVICE_PASS)
  int i, h, lane;
  if (!warp_head(p, i, h, lane)) return;
  float den = weight_of(p.sinks[h], gathered_max<Order>(p, i, h));
  float acc[dims_per_lane];
#pragma unroll
  for (int k = 0; k < dims_per_lane; ++k) acc[k] = 0.0f;
#pragma unroll 1
  for (int c = 0; c < row_chunks<Order>(p, i); ++c) {
    const float* slot = workspace_slot<Order>(p, i, h, c);
    den = den + slot[1];
#pragma unroll
    for (int k = 0; k < dims_per_lane; ++k) {
      const int d = lane + order::lanes * k;
      if (d < p.head_dim) acc[k] = acc[k] + slot[2 + d];
    }
  }
  write_lane(p, i, h, lane, acc, den);
#else
  (void)p;
#endif
}

template <int R, class Order, visibility V, schedule S>
void launch_gpu(const problem& p, gpu::stream_t stream) {
  const unsigned head_ctas = unsigned((p.n_heads + warps_per_cta - 1) / warps_per_cta);
  const dim3 heads(head_ctas, unsigned(p.rows), 1);
  if constexpr (S == schedule::whole) {
    attention_whole_kernel<R, Order, V><<<heads, warps_per_cta * 32, 0, gpu::native(stream)>>>(p);
    ORDO_GPU_CHECK_LAUNCH();
  } else {
    const int chunks = chunks_of<Order>(p.max_listed);
    if (chunks > 0) {
      const dim3 per_chunk(head_ctas, unsigned(p.rows), unsigned(chunks));
      attention_chunk_max_kernel<R, Order, V><<<per_chunk, warps_per_cta * 32, 0, gpu::native(stream)>>>(p);
      ORDO_GPU_CHECK_LAUNCH();
      attention_chunk_sums_kernel<R, Order, V><<<per_chunk, warps_per_cta * 32, 0, gpu::native(stream)>>>(p);
      ORDO_GPU_CHECK_LAUNCH();
    }
    attention_combine_kernel<R, Order, V><<<heads, warps_per_cta * 32, 0, gpu::native(stream)>>>(p);
    ORDO_GPU_CHECK_LAUNCH();
  }
}

using launcher = void (*)(const problem&, gpu::stream_t);

/// The launcher of every spec in op::for_each_spec's order (entry i is cpu_entries()[i]'s spec).
/// Provisional, like entries.hpp: kernels/attention.cpp takes these addresses so the kernels
/// become object code; the generic registry of DESIGN §3a replaces both.
inline std::vector<launcher> gpu_launchers() {
  std::vector<launcher> v;
  op::for_each_spec([&]<int R, class Order, visibility V, schedule S>() { v.push_back(&launch_gpu<R, Order, V, S>); });
  return v;
}

/// gpu_launchers() built once, defined in kernels/attention.cpp (GPU builds only).
const std::vector<launcher>& gpu_launcher_table();
#endif

}  // namespace ordo::ops::attention
