/// The rmsnorm kernel of spec (R, Order, W, E) for the generic GPU entry (ops/gpu_entry.hpp) and
/// CPU executor (ops/cpu_executor.hpp). Work item = one head of every live row.
/// GPU: a CTA of policy::warps warps per head (a whole-row norm is one head: one warp alone would
/// wait one memory round trip per batch of its 512 elements per lane). The CTA stages the head,
/// a window of `chunk` elements per live row at a time, into shared memory with wide coalesced
/// loads; the Order's accumulation of row i stays one logical warp's (warp i mod warps), fed from
/// the staged windows in ascending order; each row's partials combine with order::combine; then
/// every thread of the CTA writes its share of the head (and of its q8 blocks). CPU: lane l
/// accumulates its elements of the head for every row in one window; finish combines the 32
/// partials by the same order::combine and runs the write phases lane after lane. Nothing about
/// the split or the combine depends on R, the window, the grid or the device.
#pragma once
#include <cstddef>

#include "ordo/ops/cta_stage.hpp"
#include "ordo/ops/rmsnorm/body.hpp"
#include "ordo/order/combine.hpp"

namespace ordo::ops::rmsnorm {

/// Launch shape (cannot change bits: which warp accumulates a row, and in which windows the head
/// is staged, only move loads).
struct policy {
  static constexpr int warps = 16;
  static constexpr int stage_floats = 8192;  // shared staging of one CTA: R rows × chunk (32 KiB)
};

template <int R, class Order, weighting W, epilogue E, class Policy>
struct kernel {
  using problem = rmsnorm::problem;
  static constexpr bool can_run(const problem& p) { return fits<R, E>(p); }

  // ---- CPU executor: work item = head, 32 lanes
  static constexpr int lanes = order::lanes;
  struct lane_state {
    float acc[R];
  };
  static long work_items(const problem& p) { return p.n_heads; }
  static void lane_phase(const problem& p, long h, int lane, lane_state& s) {
    for (int i = 0; i < R; ++i) s.acc[i] = 0.0f;
    accumulate_squares<Order, R>(p, int(h), lane, s.acc);
  }
  static void finish(const problem& p, long h, const lane_state (&s)[lanes]) {
    for (int i = 0; i < p.rows; ++i) {
      order::host_lanes v;
      for (int l = 0; l < lanes; ++l) v.v[l] = s[l].acc[i];
      const float inv = inverse_rms(order::combine<Order>(v), p.head_dim, p.eps);
      for (int lane = 0; lane < lanes; ++lane) write_head<W>(p, i, int(h), lane, inv);
      if constexpr (E == epilogue::q8_32)
        for (int lane = 0; lane < lanes; ++lane) write_q8_head(p, i, int(h), lane);
    }
  }

  // ---- GPU entry: one head per CTA
  static constexpr int threads = Policy::warps * 32;
  static constexpr int chunk = Policy::stage_floats / R / 32 * 32;  // window per row: a multiple of 32
  static_assert(chunk >= 32, "rmsnorm: the staging area holds less than one 32-wide window per row");
  static constexpr std::size_t shared_bytes = (std::size_t(R) * chunk + R) * sizeof(float);  // windows, inv per row
  static unsigned grid(const problem& p) { return unsigned(p.n_heads); }
#if defined(ORDO_DEVICE_PASS)
  ORDO_DEVICE static void run_cta(const problem& p, std::byte* shared) {
    float* stage = reinterpret_cast<float*>(shared);  // [R][chunk]
    float* inv_of = stage + std::size_t(R) * chunk;   // [R]
    const int t = int(threadIdx.x), warp = t / 32, lane = t % 32;
    const int h = int(blockIdx.x);
    float acc[R];
#pragma unroll
    for (int i = 0; i < R; ++i) acc[i] = 0.0f;
#pragma unroll 1
    for (int w0 = 0; w0 < p.head_dim; w0 += chunk) {
      const int w1 = w0 + chunk < p.head_dim ? w0 + chunk : p.head_dim;
#pragma unroll 1
      for (int i = 0; i < p.rows; ++i)
        cta_stage_floats<16>(stage + std::size_t(i) * chunk, head_of(p, i, h) + w0, w1 - w0, t, threads);
      __syncthreads();
#pragma unroll
      for (int i = 0; i < R; ++i)
        if (i < p.rows && i % Policy::warps == warp)
          accumulate_squares_window<Order>(stage + std::size_t(i) * chunk, p.head_dim, w0, w1, lane, acc[i]);
      __syncthreads();  // every warp is done with the windows before the next ones overwrite them
    }
#pragma unroll
    for (int i = 0; i < R; ++i)
      if (i < p.rows && i % Policy::warps == warp) {  // whole warps: the shuffles stay full-warp
        order::warp_lanes lanes_value{acc[i]};
        const float inv = inverse_rms(order::combine<Order>(lanes_value), p.head_dim, p.eps);
        if (lane == 0) inv_of[i] = inv;
      }
    __syncthreads();
    // A head that fit one window is still staged: the writes read it from shared memory.
    const bool staged = p.head_dim <= chunk;
#pragma unroll 1
    for (int i = 0; i < p.rows; ++i)
      write_head_part<W>(p, staged ? stage + std::size_t(i) * chunk : head_of(p, i, h), i, h, t, threads,
                         inv_of[i]);
    if constexpr (E == epilogue::q8_32) {
      __syncthreads();  // the head's f32 outputs are visible to the threads that quantize them
#pragma unroll 1
      for (int i = 0; i < p.rows; ++i) write_q8_head_part(p, i, h, t, threads);
    }
  }
#endif
};

}  // namespace ordo::ops::rmsnorm
