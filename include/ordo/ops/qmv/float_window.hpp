/// qmv's window arrangement for the float weight formats (F32, F16, BF16: a dot block is 32
/// one-element weight blocks times one act_f32 block of 32 floats). The generic window path
/// reads a lane's weights from shared memory 64 or 128 bytes apart from its neighbours' (every
/// lane in the same one or two banks: 16- or 32-way conflicts) and its activations from global
/// memory with one scalar load per element that touches 32 cache lines per warp: both throughput
/// walls of the SM's load unit, hit once per element. Here each warp stages its row's weight
/// window and the CTA stages the activation window of one row at a time, both with 16-byte loads
/// (stage_words_padded), each dot block padded to an odd number of words so the 32 lanes read
/// 32 different banks; then every lane runs accumulate_block over its blocks in the Order's
/// ascending sequence, from shared memory. Rows are taken one after another inside a window
/// (row i's sequence is still its blocks ascending across windows), so the activation stage is
/// one row's window whatever the tier. Same float operations in the same sequence as
/// accumulate_window: the bits do not change. Device code only.
/// Few rows (row_mode: the HC mixes' 24, the indexer's 64, …, which left most SMs idle at a warp
/// per row — 3 CTAs for 24 rows, each warp walking its 16384-element row window by window): a CTA
/// per row, all its threads staging the row's weight window, one warp computing it. Who stages a
/// window and where a CTA starts are not arithmetic: the lanes' sequences are the same.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ordo/ops/cta_stage.hpp"
#include "ordo/ops/qmv/body.hpp"
#include "ordo/quant/act_f32.hpp"

namespace ordo::ops::qmv::float_window {

/// Formats this arrangement reads: 32 whole one-element blocks of 2 or 4 bytes per dot block.
template <class F>
inline constexpr bool applies = std::is_same_v<typename F::activation, quant::act_f32> && F::block_elems == 1 &&
                                F::dot_elems == 32 && (F::block_bytes == 2 || F::block_bytes == 4);

/// 32-bit words of one dot block's weights as staged (odd: conflict-free across lanes), and of
/// one activation block (32 floats + 1).
template <class F>
inline constexpr int weight_run = int(dot_bytes<F> / 4);
template <class F>
inline constexpr int weight_words = weight_run<F> + 1;
inline constexpr int act_run = 32;
inline constexpr int act_words = act_run + 1;

/// Dot blocks per window: as many 32-block groups as fit the 48 KiB a CTA may take (>= 1).
template <class F, class Policy>
inline constexpr int window_blocks = [] {
  const int group_bytes = 32 * 4 * (Policy::warps * weight_words<F> + act_words);
  const int groups = 48 * 1024 / group_bytes;
  return 32 * (groups > 0 ? groups : 1);
}();

template <class F, class Policy>
inline constexpr std::size_t shared_bytes =
    std::size_t(window_blocks<F, Policy>) * 4 * (std::size_t(Policy::warps) * weight_words<F> + act_words);

/// Whether the rows can be read as 32-bit words (else the generic window path runs).
ORDO_HD inline bool aligned(const problem& p) {
  return (reinterpret_cast<std::uintptr_t>(p.weights) & 3) == 0 && p.weight_row_bytes % 4 == 0 &&
         (reinterpret_cast<std::uintptr_t>(p.acts) & 3) == 0 && p.act_row_bytes % 4 == 0;
}

/// Rows up to which a CTA takes one row (its grid is then n_out CTAs): at a warp per row these
/// problems fill at most 64 CTAs of 8 warps, half the H200's SMs.
inline constexpr int row_mode_rows = 512;
ORDO_HD inline bool row_mode(const problem& p) { return aligned(p) && p.n_out <= row_mode_rows; }

#if defined(ORDO_DEVICE_PASS)
template <class F, int R, class Order, class Policy>
ORDO_DEVICE void run_cta(const problem& p, std::byte* shared) {
  using act_block = quant::act_f32::block;
  constexpr int warps = Policy::warps, wb = window_blocks<F, Policy>, ww = weight_words<F>;
  const int t = int(threadIdx.x), warp = t / 32, lane = t % 32;
  const bool by_row = row_mode(p);  // uniform: a CTA per row, its warp 0 computing
  const int per_cta = by_row ? 1 : warps;
  // [wb][ww]: the warp's own row window, or in row mode the CTA's one row window
  auto* weight_stage = reinterpret_cast<std::uint32_t*>(shared) + std::size_t(by_row ? 0 : warp) * wb * ww;
  auto* act_stage = reinterpret_cast<std::uint32_t*>(shared) + std::size_t(warps) * wb * ww;  // [wb][act_words]
  const int nb = p.k / F::dot_elems;
  // The loops are uniform across the CTA (a warp past the last row idles) so __syncthreads is safe.
  for (int base = int(blockIdx.x) * per_cta; base < p.n_out; base += int(gridDim.x) * per_cta) {
    const int row = by_row ? base : base + warp;
    const bool live = row < p.n_out && (!by_row || warp == 0);
    const std::byte* wrow = p.weights + std::size_t(row < p.n_out ? row : 0) * p.weight_row_bytes;
    float acc[R];
#pragma unroll
    for (int i = 0; i < R; ++i) acc[i] = 0.0f;
    for (int w0 = 0; w0 < nb; w0 += wb) {
      const int w1 = w0 + wb < nb ? w0 + wb : nb;
      if (by_row)
        stage_words_padded<weight_run<F>, ww>(weight_stage, wrow + std::size_t(w0) * dot_bytes<F>,
                                              (w1 - w0) * weight_run<F>, t, warps * 32);
      else if (live)
        stage_words_padded<weight_run<F>, ww>(weight_stage, wrow + std::size_t(w0) * dot_bytes<F>,
                                              (w1 - w0) * weight_run<F>, lane, 32);
#pragma unroll
      for (int i = 0; i < R; ++i) {
        if (i < p.rows) {
          stage_words_padded<act_run, act_words>(
              act_stage, p.acts + std::size_t(i) * p.act_row_bytes + std::size_t(w0) * sizeof(act_block),
              (w1 - w0) * act_run, t, warps * 32);
          __syncthreads();  // this row's activations (and, the first time, the warp's weights) are staged
          if (live) {
            const order::lane_range range = Order::range(lane, nb, w0, w1);
#pragma unroll 1
            for (int b = range.begin; b < range.end; b += range.step)
              accumulate_block<F>(acc[i], reinterpret_cast<const typename F::block*>(weight_stage + (b - w0) * ww),
                                  *reinterpret_cast<const act_block*>(act_stage + (b - w0) * act_words));
          }
          __syncthreads();  // every warp is done with the activations before the next row's overwrite them
        }
      }
    }
    if (live) {
#pragma unroll
      for (int i = 0; i < R; ++i) {
        if (i < p.rows) {
          order::warp_lanes v{acc[i]};
          const float sum = combine_row<Order>(v);
          if (lane == 0) p.out[std::size_t(i) * p.out_stride + row] = sum;
        }
      }
    }
  }
}
#endif

}  // namespace ordo::ops::qmv::float_window
