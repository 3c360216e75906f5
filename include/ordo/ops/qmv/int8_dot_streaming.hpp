/// The streaming GPU kernel for weight formats whose dot is scale × exact int8 dot against q8_32
/// (Q8_0, MXFP4; int8_block_decoders.hpp), in the lane-strided order (CUDA, sm_80+): the same
/// float operations in the same sequence as accumulate_window + the butterfly (so the bits of the
/// CPU executor, at every tier), arranged so the weight bytes stream from HBM at full rate:
///   - persistent CTAs; the R activation rows are staged once per CTA in shared memory, re-laid out
///     as 16-byte-aligned 32-byte code runs in the decoder's arrangement and a separate scale array
///     (two 16-byte loads per block; staged_activations.hpp);
///   - each warp owns groups of `rows_per_warp` weight rows and walks them in windows of 32 blocks
///     (one block per lane, exactly the blocks ls32 gives the lanes); the windows stream into a
///     warp-private ring of `stages` shared-memory buffers (window_ring.hpp: bulk copies where the
///     windows are in 16-byte granules, else cp.async), so `stages - 1` windows are in flight while
///     one is computed, with no CTA barrier after the staging;
///   - a lane decodes its block of each of the group's rows once (aligned 32-bit loads + byte
///     permutes) and reuses it for all R activation rows; the integer dot is 8 dp4a (exact), the
///     term (scale·x.d)·float(isum) and `acc = acc + term` are the one-row statements, per (weight
///     row, activation row), in ascending window order;
///   - the group's rows_per_warp·R partial sums go through the exact halving butterfly;
///   - under a Policy's `streaming_overlap` (dependent_launch.hpp) the launch may begin while the
///     kernel before it drains, the first weight windows requested before waiting for it.
/// Only the CUDA device pass has a body; try_launch says false where its preconditions fail
/// (alignment, shared memory) and qmv_gpu.hpp then runs the generic kernel.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ordo/gpu/intrinsics.hpp"
#include "ordo/gpu/device_api.hpp"
#include "ordo/gpu/resident_grid.hpp"
#include "ordo/ops/qmv/dependent_launch.hpp"
#include "ordo/ops/qmv/halving_butterfly.hpp"
#include "ordo/ops/qmv/int8_block_decoders.hpp"
#include "ordo/ops/qmv/problem.hpp"
#include "ordo/ops/qmv/staged_activations.hpp"
#include "ordo/ops/qmv/window_ring.hpp"

namespace ordo::ops::qmv::int8_dot_streaming {

/// Shape of the kernel; a Policy may override each with a member of the same name prefixed
/// `streaming_` (tune/sm90.hpp does), and the rows per warp per format with
/// `streaming_rows_per_warp_<format>`, and the launch overlap with `streaming_overlap`. None of
/// them changes bits.
template <class Policy, class D>
struct config {
  static constexpr int warps = [] {
    if constexpr (requires { Policy::streaming_warps; }) return int(Policy::streaming_warps);
    else return 8;
  }();
  static constexpr int stages = [] {
    if constexpr (requires { Policy::streaming_stages; }) return int(Policy::streaming_stages);
    else return 3;
  }();
  static constexpr int rows_per_warp = [] {
    if constexpr (std::is_same_v<typename D::format, quant::mxfp4> && requires { Policy::streaming_rows_per_warp_mxfp4; })
      return int(Policy::streaming_rows_per_warp_mxfp4);
    else if constexpr (requires { Policy::streaming_rows_per_warp; }) return int(Policy::streaming_rows_per_warp);
    else return 4;
  }();
  static constexpr bool bulk = [] {  // windows in 16-byte granules by bulk copies (window_ring.hpp)
    if constexpr (requires { Policy::streaming_bulk; }) return bool(Policy::streaming_bulk);
    else return true;
  }();
  static constexpr launch_overlap overlap = [] {
    if constexpr (requires { Policy::streaming_overlap; }) return launch_overlap(Policy::streaming_overlap);
    else return launch_overlap::none;
  }();
};

inline constexpr int window_blocks = 32;                                  // one block per lane

/// Bytes of one row's window, and of its stage (+16: the window may start anywhere in a 16-byte chunk).
template <class D>
inline constexpr int window_bytes = window_blocks * D::block_bytes;
template <class D>
inline constexpr int row_stage_bytes = (window_bytes<D> + 16 + 15) / 16 * 16;

template <class D, class Policy>
inline constexpr std::size_t weight_smem_bytes =
    std::size_t(config<Policy, D>::warps) * config<Policy, D>::stages * config<Policy, D>::rows_per_warp * row_stage_bytes<D>;

/// Where the ring barriers start: after the staged activations, 16-byte aligned.
template <class D, int R, class Policy>
ORDO_HD inline std::size_t barriers_offset(int nb) {
  return (weight_smem_bytes<D, Policy> + staged_q8_32_bytes(R, nb) + 15) / 16 * 16;
}
/// Shared memory of one CTA: the weight rings, then R·nb activation code runs (32 B), then R·nb
/// scales, then the rings' barriers (a ring slot each).
template <class D, int R, class Policy>
inline std::size_t smem_bytes(int nb) {
  return barriers_offset<D, R, Policy>(nb) + std::size_t(config<Policy, D>::warps) * config<Policy, D>::stages * sizeof(std::uint64_t);
}

/// Whether every window of p starts and ends on a 16-byte boundary (the weights are 16-byte
/// aligned: try_launch checks), so the ring may take it in bulk copies.
template <class D>
ORDO_HD inline bool windows_in_granules(const problem& p) {
  const std::size_t row_data = std::size_t(p.k / D::format::dot_elems) * D::block_bytes;
  return p.weight_row_bytes % 16 == 0 && window_bytes<D> % 16 == 0 && row_data % 16 == 0;
}

#if defined(ORDO_GPU_CUDA)
extern __shared__ uint4 ordo_qmv_int8_dot_streaming_smem[];

template <class D, int R, class Policy>
__global__ void __launch_bounds__(config<Policy, D>::warps * 32) kernel(problem p) {
#if defined(ORDO_DEVICE_PASS)
  using cfg = config<Policy, D>;
  constexpr int RW = cfg::rows_per_warp, S = cfg::stages, W = cfg::warps;
  constexpr int block_bytes = D::block_bytes, wbytes = window_bytes<D>, stage_bytes = row_stage_bytes<D>;
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const int nb = p.k / D::format::dot_elems;
  const int windows = (nb + window_blocks - 1) / window_blocks;
  const int groups = (p.n_out + RW - 1) / RW;

  auto* smem = reinterpret_cast<std::byte*>(ordo_qmv_int8_dot_streaming_smem);
  const window_ring<S, RW, stage_bytes> ring{smem + std::size_t(warp) * S * RW * stage_bytes,
                                             reinterpret_cast<std::uint64_t*>(smem + barriers_offset<D, R, Policy>(nb)) + warp * S,
                                             cfg::bulk && windows_in_granules<D>(p)};
  ring.init(lane);
  auto* act_qs = reinterpret_cast<uint4*>(smem + weight_smem_bytes<D, Policy>);  // 2 × [R][nb] uint4 (staged_q8_32_codes)
  auto* act_d = reinterpret_cast<float*>(smem + weight_smem_bytes<D, Policy> + std::size_t(R) * nb * 32);

  // This warp's tiles: group g = first + q·stride (q = 0, 1, ...), window j; tile t = q·windows + j.
  const int first = int(blockIdx.x) * W + warp, stride = int(gridDim.x) * W;
  const int my_groups = first < groups ? (groups - first + stride - 1) / stride : 0;
  const int tiles = my_groups * windows;

  // Row window start (global) and its byte count for tile t, row rr of the group.
  auto issue = [&](int t) {
    const int g = first + (t / windows) * stride, j = t % windows;
    const int blocks = nb - j * window_blocks < window_blocks ? nb - j * window_blocks : window_blocks;
    const std::byte* start[RW];
    int bytes[RW];
#pragma unroll
    for (int rr = 0; rr < RW; ++rr) {
      const int row = g * RW + rr;
      start[rr] = row < p.n_out ? p.weights + std::size_t(row) * p.weight_row_bytes + std::size_t(j) * wbytes : nullptr;
      bytes[rr] = blocks * block_bytes;
    }
    ring.request(t % S, t < tiles, start, bytes, lane);
  };

  // The first windows are requested before the activations are staged: they do not depend on them,
  // nor (weights_before_wait) on the kernel before this one; activations and outputs do.
  if constexpr (cfg::overlap != launch_overlap::none) dependent_launch::allow_dependents();
  if constexpr (cfg::overlap == launch_overlap::dependent_launch) dependent_launch::wait_for_predecessor();
#pragma unroll
  for (int t = 0; t < S - 1; ++t) issue(t);
  if constexpr (cfg::overlap == launch_overlap::weights_before_wait) dependent_launch::wait_for_predecessor();

  // Stage the live activation rows once, in D's arrangement (rows >= p.rows are zeros, never read).
  stage_q8_32_rows<D>(p.acts, p.act_row_bytes, p.rows, R, nb, act_qs, act_d);
  __syncthreads();

  const staged_q8_32_codes act_codes(act_qs, R, nb);
  float acc[RW * R];
  for (int t = 0; t < tiles; ++t) {
    const int g = first + (t / windows) * stride, j = t % windows;
    __syncwarp();  // every lane is done with the stage tile t + S - 1 overwrites (tile t - 1's)
    issue(t + S - 1);
    ring.wait(t % S, unsigned(t / S) & 1u);

    if (j == 0) {
#pragma unroll
      for (int v = 0; v < RW * R; ++v) acc[v] = 0.0f;
    }
    const std::byte* stage = ring.slot(t % S);
    const int b = j * window_blocks + lane;  // ls32: lane l owns blocks l, l + 32, ... (ascending)
    const bool live = b < nb;
    const int bx = live ? b : 0;

    // Decode this lane's block of each row once: the scale and the 32 codes as 8 packed words (in
    // the order the staged activation words were arranged in).
    std::uint32_t wq[RW][D::words];
    float wd[RW];
#pragma unroll
    for (int rr = 0; rr < RW; ++rr) {
      const int row = g * RW + rr;
      const std::uintptr_t start = reinterpret_cast<std::uintptr_t>(
          p.weights + std::size_t(row < p.n_out ? row : 0) * p.weight_row_bytes + std::size_t(j) * wbytes);
      D::decode(stage + rr * stage_bytes, int(start & 15) + lane * block_bytes, wd[rr], wq[rr]);
    }

#pragma unroll
    for (int i = 0; i < R; ++i) {
      std::uint32_t xq[8];
      act_codes.load(i * nb + bx, xq);
      const float xd = act_d[i * nb + bx];
#pragma unroll
      for (int rr = 0; rr < RW; ++rr) {
        const std::int32_t isum = D::dot(wq[rr], xq);
        // F::dot_scale, statement for statement
        const float term = (wd[rr] * xd) * static_cast<float>(isum);
        if (live) acc[rr * R + i] = acc[rr * R + i] + term;
      }
    }

    if (j == windows - 1) {
      halving_butterfly<RW * R>(acc, lane);
#pragma unroll
      for (int v = 0; v < halved_count<RW * R>; ++v) {
        const int idx = halved_value_index<RW * R>(lane, v);
        const int rr = idx / R, i = idx % R, row = g * RW + rr;
        const bool writer = halving_steps<RW * R> == 5 || (lane & ((1 << (5 - halving_steps<RW * R>)) - 1)) == 0;
        if (writer && row < p.n_out && i < p.rows) p.out[std::size_t(i) * p.out_stride + row] = acc[v];
      }
    }
  }
  ring.drain();
#else
  (void)p;
#endif
}

/// Launches the streaming kernel when its preconditions hold: weights 16-byte aligned (rows at any
/// offset the decoder accepts), activation rows 4-byte aligned, and the staged activations fit beside the
/// weight rings in shared memory. Returns false (and launches nothing) otherwise.
template <class D, int R, class Policy>
bool try_launch(const problem& p, gpu::stream_t stream) {
  using cfg = config<Policy, D>;
  const int nb = p.k / D::format::dot_elems;
  if (nb <= 0 || p.n_out <= 0) return false;
  if ((reinterpret_cast<std::uintptr_t>(p.weights) & 15) != 0 || !D::row_bytes_ok(p.weight_row_bytes)) return false;
  if ((reinterpret_cast<std::uintptr_t>(p.acts) & 3) != 0 || (p.act_row_bytes & 3) != 0) return false;
  const std::size_t smem = smem_bytes<D, R, Policy>(nb);
  const int resident = gpu::resident_ctas<&kernel<D, R, Policy>>(cfg::warps * 32, smem);
  if (resident == 0) return false;
  const int groups = (p.n_out + cfg::rows_per_warp - 1) / cfg::rows_per_warp;
  const int needed = (groups + cfg::warps - 1) / cfg::warps;
  const int grid = needed < resident ? needed : resident;
  if constexpr (cfg::overlap == launch_overlap::none) {
    kernel<D, R, Policy><<<unsigned(grid), cfg::warps * 32, smem, gpu::native(stream)>>>(p);
    ORDO_GPU_CHECK_LAUNCH();
  } else {
    dependent_launch::launch(kernel<D, R, Policy>, unsigned(grid), unsigned(cfg::warps * 32), smem, stream, p);
  }
  return true;
}
#endif

}  // namespace ordo::ops::qmv::int8_dot_streaming
