/// The warp-cooperative GPU arrangement of qmv's lane-strided order for K-quant formats whose
/// 256-element dot block splits into 8 exact integer chunks (IQ2_XXS, Q2_K: int_chunk_decoders.hpp).
///
/// Why: in ls32, lane l owns blocks l, l + 32, … of a row, so an expert row of 16 (gate/up) or 8
/// (down) blocks leaves 16–24 lanes idle while each busy lane decodes 256 elements and dots them
/// against every activation row byte by byte. The Order fixes only the float sequence of each
/// lane's partial sum — `acc = acc + dot_scale(block, x.d, int_sum)` over its blocks ascending —
/// and int_sum is an exact integer, so who computes it is free (DESIGN §5). Here, per window of 32
/// blocks, lane l decodes chunk l % 8 of blocks l / 8 + 4t (t = 0..7) once, dots it against all R
/// activation rows (dp4a), the 8 chunk lanes of a block sum their parts with xor shuffles (exact),
/// and the block's owner lane (lane = block mod 32, as ls32 says) takes the total and runs the
/// one-row float statement. Same float operations in the same sequence as accumulate_window, so the
/// bits of the CPU executor at every tier (E1, E2); the combine is order::combine as in kernel.hpp.
///
/// One weight row per warp, as the generic kernel; weights are read straight from global memory
/// (no shared-memory window). Preconditions (checked by the caller, uniform per launch): weight rows
/// and activation rows 4-byte aligned.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ordo/gpu/intrinsics.hpp"
#include "ordo/gpu/portability.hpp"
#include "ordo/ops/qmv/f16_scales.hpp"
#include "ordo/ops/qmv/int_chunk_decoders.hpp"
#include "ordo/ops/qmv/problem.hpp"
#include "ordo/order/combine.hpp"
#include "ordo/order/orders.hpp"

namespace ordo::ops::qmv::int_chunk_cooperative {

/// Whether the arrangement runs format F in order Order.
template <class F, class Order>
inline constexpr bool applies = [] {
  if constexpr (has_int_chunk_decoder<F> && std::is_same_v<Order, order::lane_strided>)
    return F::dot_elems == 256 && F::int_chunks == 8;
  else
    return false;
}();

/// Whether it can run p (alignment of the rows it reads with 32-bit loads).
ORDO_HD inline bool aligned(const problem& p) {
  return (reinterpret_cast<std::uintptr_t>(p.weights) & 3) == 0 && (p.weight_row_bytes & 3) == 0 &&
         (reinterpret_cast<std::uintptr_t>(p.acts) & 3) == 0 && (p.act_row_bytes & 3) == 0;
}

#if defined(ORDO_DEVICE_PASS)
ORDO_DEVICE ORDO_FORCEINLINE std::int32_t xor_sum(std::int32_t v, int o) { return v + gpu::shfl_xor_i32(v, o); }
ORDO_DEVICE ORDO_FORCEINLINE quant::scaled_min_sums xor_sum(quant::scaled_min_sums v, int o) {
  return {v.sumi + gpu::shfl_xor_i32(v.sumi, o), v.summ + gpu::shfl_xor_i32(v.summ, o)};
}
ORDO_DEVICE ORDO_FORCEINLINE std::int32_t from_lane(std::int32_t v, int src) { return gpu::shfl_i32(v, src); }
ORDO_DEVICE ORDO_FORCEINLINE quant::scaled_min_sums from_lane(quant::scaled_min_sums v, int src) {
  return {gpu::shfl_i32(v.sumi, src), gpu::shfl_i32(v.summ, src)};
}

/// One window of NR weight rows — row n's blocks wwin[n][0 .. wb), wb <= 32, the window's first
/// block a multiple of 32 into the row, so block j's ls32 owner is lane j — against `live`
/// activation rows: each owner lane adds its block's one-row term to acc[n · R + i]. `act(i, j)`
/// is activation row i's dot block for window block j. Every lane of the warp calls it together;
/// the windows may lie in global or shared memory. The NR rows walk together: each step decodes a
/// chunk of every row and dots them against the same activation words (loaded once), so a warp
/// has NR independent chains in flight; each accumulator still gets its block terms one at a time,
/// ascending, as with one row. StepUnroll: copies of the 8-step loop's body (1: a loop; its trip
/// count is uniform). Unrolled whole, the body's IQ2_XXS/Q2_K decode × R rows made the q2 layout's
/// streamed moe kernels 111–420 KB of code (gate_up at tier 1: 264 KB, 95 KB as a loop;
/// bench/moe/kernel_resources.sh), far past the instruction caches. Tables: where the decoder finds
/// its tables (int_chunk_decoders.hpp: the format's own, or copies the caller filled). FusedSigns:
/// at one activation row, a decoder's decode_dot where it has one (IQ2_XXS), else decode then dot;
/// the same integers either way.
template <class F, int NR, int R, int StepUnroll = 1, bool FusedSigns = true, class Act, class Tables = format_tables>
ORDO_DEVICE ORDO_FORCEINLINE void accumulate_window_rows(const typename F::block* const (&wwin)[NR], int wb, int live,
                                                         const Act& act, int lane, float (&acc)[NR * R],
                                                         const Tables& tables = {}) {
  using dec = int_chunk_decoder<F>;
  using sum_t = typename dec::int_sum;
  const int group = lane / 8, chunk = lane % 8;  // chunk `chunk` of window blocks group + 4t
  sum_t mine[NR * R];
#pragma unroll
  for (int k = 0; k < NR * R; ++k) mine[k] = sum_t{};
#pragma unroll StepUnroll
  for (int t = 0; t < 8; ++t) {
    if (4 * t >= wb) break;  // uniform: the window has no block at this step
    // Past the window's end (wb not a multiple of 4) a lane repeats the window's last block: no
    // owner takes those sums (only lanes below wb add theirs), and without a branch around the
    // decode a step needs no convergence region and no zeroed sums.
    const int j = group + 4 * t < wb ? group + 4 * t : wb - 1;
    sum_t s[NR * R];
    if constexpr (R > 1) {
#pragma unroll
      for (int k = 0; k < NR * R; ++k) s[k] = sum_t{};
    }
    // Up to 2 activation rows, and no more than the weight rows decoded, their words are
    // requested before the decode, so the loads' latency hides behind it. More would hold 8
    // registers a row across it: qmv's one-row walk at 2 activation rows went from 60 to 78
    // registers (3 CTAs an SM instead of 4) and its down shapes ran 16-26% slower (session 17).
    constexpr bool early = R <= 2 && R <= NR;
    std::uint32_t xw[early ? R : 1][8];
    if constexpr (early) {
#pragma unroll
      for (int i = 0; i < R; ++i)
        if (R == 1 || i < live) chunk_words(act(i, j), chunk, xw[i]);
    }
    if constexpr (FusedSigns && R == 1 && has_decode_dot<dec>) {
      // one activation row: each row's chunk decoded and dotted in one (the decoder's fused form,
      // the same integer with fewer instructions)
#pragma unroll
      for (int n = 0; n < NR; ++n) {
        if constexpr (is_iq2_copied<Tables>) s[n] = dec::decode_dot(wwin[n][j], chunk, xw[0], tables);
        else s[n] = dec::decode_dot(wwin[n][j], chunk, xw[0]);
      }
    } else {
      std::uint32_t words[NR][8];
#pragma unroll
      for (int n = 0; n < NR; ++n) {
        // the format's own tables go unnamed: passing the empty object on took the q2 layout's
        // streamed kernels to 128 registers and 17% more code (ptxas, session 18)
        if constexpr (is_iq2_copied<Tables>) dec::decode(wwin[n][j], chunk, words[n], tables);
        else dec::decode(wwin[n][j], chunk, words[n]);
      }
#pragma unroll
      for (int i = 0; i < R; ++i)
        if (R == 1 || i < live) {  // one row: always live (a walk has a row), so no test
          const auto& x = act(i, j);
          if constexpr (!early) chunk_words(x, chunk, xw[0]);
#pragma unroll
          for (int n = 0; n < NR; ++n) s[n * R + i] = dec::dot(wwin[n][j], chunk, words[n], xw[early ? i : 0], x);
        }
    }
    // The 8 chunk lanes of block j hold its parts: exact sums inside the 8-lane group; then
    // block 4t + q's owner, lane 4t + q, takes it from group q (live rows only: `live` is uniform;
    // at one row every call has it live, and without the test the shuffles need no convergence
    // region around them).
#pragma unroll
    for (int k = 0; k < NR * R; ++k) {
      if (R == 1 || k % R < live) {
        s[k] = xor_sum(xor_sum(xor_sum(s[k], 1), 2), 4);
        const sum_t v = from_lane(s[k], 8 * (lane % 4));
        if (lane / 4 == t) mine[k] = v;
      }
    }
  }
  if (lane < wb) {
#pragma unroll
    for (int n = 0; n < NR; ++n) {
      const auto& blk = wwin[n][lane];
#pragma unroll
      for (int i = 0; i < R; ++i)
        // F::dot_scale with its f16 scales widened by the hardware (the same bits, f16_scales.hpp)
        if (i < live) acc[n * R + i] = acc[n * R + i] + F::dot_scale(blk, act(i, lane).d, mine[n * R + i], f16_scale_widening{});
    }
  }
}

/// accumulate_window_rows for one weight row: blocks wwin[0 .. wb) into acc[i].
template <class F, int R, int StepUnroll = 1, class Act>
ORDO_DEVICE ORDO_FORCEINLINE void accumulate_window(const typename F::block* wwin, int wb, int live, const Act& act, int lane,
                                                    float (&acc)[R]) {
  const typename F::block* const rows[1] = {wwin};
  accumulate_window_rows<F, 1, R, StepUnroll>(rows, wb, live, act, lane, acc);
}

/// One weight row (`wrow`, nb dot blocks) against `live` activation rows: each lane's ls32 partial
/// sums in acc (before the combine), window after window. `act(i, b)` is activation row i's dot
/// block b (qmv: strided rows; moe: a pass's gathered rows). Every lane of the warp calls it together.
template <class F, int R, class Act>
ORDO_DEVICE ORDO_FORCEINLINE void accumulate_row(const typename F::block* wrow, int nb, int live, const Act& act, int lane,
                                                 float (&acc)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) acc[i] = 0.0f;
  for (int w0 = 0; w0 < nb; w0 += 32) {
    const int wb = nb - w0 < 32 ? nb - w0 : 32;
    accumulate_window<F, R>(wrow + w0, wb, live, [&](int i, int j) -> decltype(auto) { return act(i, w0 + j); }, lane, acc);
  }
}

/// qmv: the rows of the CTA's warps, one weight row per warp at a time, grid-strided as kernel.hpp.
template <class F, int R, class Order>
ORDO_DEVICE void run_cta(const problem& p, int warps) {
  using act_block = typename F::activation::block;
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const int nb = p.k / F::dot_elems;
  auto act = [&](int i, int b) -> const act_block& {
    return reinterpret_cast<const act_block*>(p.acts + std::size_t(i) * p.act_row_bytes)[b];
  };
  // The loops are uniform per warp (a warp past the last row leaves); no CTA barrier is used.
  for (int base = int(blockIdx.x) * warps; base < p.n_out; base += int(gridDim.x) * warps) {
    const int row = base + warp;
    if (row >= p.n_out) break;
    float acc[R];
    accumulate_row<F, R>(reinterpret_cast<const typename F::block*>(p.weights + std::size_t(row) * p.weight_row_bytes), nb,
                         p.rows, act, lane, acc);
#pragma unroll
    for (int i = 0; i < R; ++i) {
      if (i < p.rows) {
        order::warp_lanes v{acc[i]};
        const float sum = order::combine<Order>(v);
        if (lane == 0) p.out[std::size_t(i) * p.out_stride + row] = sum;
      }
    }
  }
}
#endif

}  // namespace ordo::ops::qmv::int_chunk_cooperative
