/// The qmv kernel for many activation rows (tiers 8 and 16) of Q8_0 weights in the lane-strided
/// order (CUDA sm_90): the block's exact integer dots come from the tensor cores
/// (`mma.sync.m16n8k32.s32.s8.s8`: one 32-code block of 16 weight rows against 8 activation rows),
/// and the float statements are ls32's, in its order, so the bits are the CPU executor's and tier 1's.
///
/// Why the order can be kept: ls32 gives lane l the blocks l, l + 32, l + 64, … (`acc = acc + term`,
/// ascending from 0.0f: the "leaf" l), then adds the 32 leaves by the xor butterfly 16, 8, 4, 2, 1,
/// which is a fixed balanced tree: level 1 adds leaves l and l + 16, level 2 nodes l and l + 8, …
/// Any thread may compute any leaf or node as long as it performs these adds. Here
///   - a warp w of S owns the leaves ≡ w (mod S) for every (weight row, activation row) pair of a
///     16-row tile: the subtree of the butterfly whose root is the level-log2(32/S) node w, which it
///     adds in registers (leaf m with leaf m + n/2, …; n = 32/S leaves);
///   - the S subtree roots meet in shared memory, where the rest of the tree (nodes w and w + S/2,
///     …) is added, each thread finishing a share of the tile's pairs;
///   - a pair's terms land in one thread for every block (the mma's C fragment: thread (g, q) holds
///     weight rows g and g + 8 against activation rows 2q and 2q + 1 of each 8-row n-tile), so a
///     leaf is that thread's register, summed window by window in ascending block order;
///   - term = (scale · x.d) · (float)isum is quant::q8_0::dot_scale statement for statement, and
///     isum is the exact integer dot whatever unit computes it (|Σ| < 2^20); (float)isum comes
///     from the FP32 pipe, exactly (int8_mma_parts.hpp: float_of_biased).
/// Arrangement: persistent CTAs of S warps; a CTA walks its 16-row tiles window by window (32
/// blocks of each of the 16 rows, one bulk copy a row, into a ring of `stages` slots whose rows are
/// padded to an odd number of 16-byte granules, so the 8 rows a fragment load touches fall in
/// distinct banks); the R activation rows are staged once per CTA as mma B fragments (8 bytes a
/// lane a block) and their scales as [block][row]. Thread 0 requests the slot `stages - 1` ahead
/// once every warp has released it (an "empty" barrier of S arrivals).
/// Applies to Q8_0 at R >= Policy::mma_min_rows (8 unless the Policy says otherwise), R a multiple
/// of 8, rows in whole 16-byte granules (the bulk copies); try_launch says false elsewhere and
/// kernel.hpp runs the dp4a streaming kernel (int8_dot_streaming.hpp), the same bits.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ordo/gpu/device_api.hpp"
#include "ordo/gpu/intrinsics.hpp"
#include "ordo/gpu/resident_grid.hpp"
#include "ordo/ops/qmv/bulk_copy.hpp"
#include "ordo/ops/qmv/dependent_launch.hpp"
#include "ordo/ops/qmv/int8_block_decoders.hpp"
#include "ordo/ops/qmv/int8_dot_streaming.hpp"
#include "ordo/ops/qmv/int8_mma_parts.hpp"
#include "ordo/ops/qmv/problem.hpp"
#include "ordo/ops/qmv/staged_activations.hpp"

namespace ordo::ops::qmv::int8_mma_tree {

/// Shape of the kernel; a Policy may override each with a member of the same name prefixed `mma_`
/// (none changes bits): `subtrees` warps a CTA (a power of two, 2..32), `stages` ring slots,
/// `min_rows` the smallest tier that takes this kernel (> 16: never).
template <class Policy>
struct config {
  static constexpr int subtrees = [] {
    if constexpr (requires { Policy::mma_subtrees; }) return int(Policy::mma_subtrees);
    else return 8;
  }();
  static constexpr int stages = [] {
    if constexpr (requires { Policy::mma_stages; }) return int(Policy::mma_stages);
    else return 4;
  }();
  static constexpr int min_rows = [] {
    if constexpr (requires { Policy::mma_min_rows; }) return int(Policy::mma_min_rows);
    else return 8;
  }();
  static constexpr launch_overlap overlap = int8_dot_streaming::config<Policy, q8_0_decoder>::overlap;
  static_assert(subtrees >= 2 && subtrees <= 32 && (subtrees & (subtrees - 1)) == 0, "subtrees: a power of two in 2..32");
};

/// Whether the kernel serves format F at tier R under Policy.
template <class F, int R, class Policy>
inline constexpr bool applies = std::is_same_v<F, quant::q8_0> && R % 8 == 0 && R >= config<Policy>::min_rows;

inline constexpr int tile_rows = 16;      // the mma's M: weight rows a tile
inline constexpr int window_blocks = 32;  // one block per ls32 leaf
inline constexpr int window_bytes = window_blocks * quant::q8_0::block_bytes;
/// A slot's row pitch: the window in whole granules, an odd number of them (8 rows g·pitch apart
/// then start in 8 distinct 4-bank groups).
inline constexpr int row_pitch = [] {
  const int granules = (window_bytes + 15) / 16;
  return 16 * (granules % 2 == 1 ? granules : granules + 1);
}();
inline constexpr int slot_bytes = tile_rows * row_pitch;

/// Shared memory of one CTA, in this order: the ring's slots; the activation B fragments (R·nb·32
/// bytes); their scales (R·nb floats); two exchange buffers of the subtree roots; the barriers.
template <int R, class Policy>
struct smem_layout {
  static constexpr int S = config<Policy>::subtrees, stages = config<Policy>::stages, values = 4 * (R / 8);
  std::size_t frags, scales, exchange, barriers, total;
  ORDO_HD explicit smem_layout(int nb) {
    frags = std::size_t(stages) * slot_bytes;
    scales = frags + std::size_t(R) * nb * 32;
    exchange = (scales + std::size_t(R) * nb * 4 + 15) / 16 * 16;
    barriers = exchange + 2 * std::size_t(S) * values * 32 * sizeof(float);
    total = barriers + 2 * std::size_t(stages) * sizeof(std::uint64_t);
  }
};

#if defined(ORDO_GPU_CUDA)
extern __shared__ uint4 ordo_qmv_int8_mma_tree_smem[];

#if defined(ORDO_DEVICE_PASS)
/// d[0..3] = biased_zero + the exact int32 dots of m16n8k32 (A: 16 rows × 32 int8, B: 32 × 8 int8).
ORDO_DEVICE ORDO_FORCEINLINE void mma_s8(std::int32_t (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0, std::uint32_t b1) {
  asm("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %10, %10, %10};\n"
      : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "r"(biased_zero));
}
#endif

template <int R, class Policy>
__global__ void __launch_bounds__(config<Policy>::subtrees * 32) kernel(problem p) {
#if defined(ORDO_DEVICE_PASS)
  using cfg = config<Policy>;
  constexpr int S = cfg::subtrees, NS = cfg::stages, NT = R / 8, V = 4 * NT, leaves = window_blocks / S;
  constexpr int block_bytes = quant::q8_0::block_bytes;
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32, g = lane / 4, q = lane % 4;
  const int nb = p.k / quant::q8_0::dot_elems;
  const int windows = (nb + window_blocks - 1) / window_blocks;
  const int tiles = (p.n_out + tile_rows - 1) / tile_rows;
  const int my_tiles = int(blockIdx.x) < tiles ? (tiles - int(blockIdx.x) + int(gridDim.x) - 1) / int(gridDim.x) : 0;
  const int units = my_tiles * windows;  // unit u: tile blockIdx.x + (u / windows)·gridDim.x, window u % windows

  auto* smem = reinterpret_cast<std::byte*>(ordo_qmv_int8_mma_tree_smem);
  const smem_layout<R, Policy> L(nb);
  auto* frags = reinterpret_cast<uint2*>(smem + L.frags);  // [nb][NT][32 lanes]: (codes 4q.., codes 16+4q..)
  auto* xs = reinterpret_cast<float*>(smem + L.scales);    // [nb][R]
  auto* exchange = reinterpret_cast<float*>(smem + L.exchange);
  auto* full = reinterpret_cast<std::uint64_t*>(smem + L.barriers);
  std::uint64_t* empty = full + NS;
  if (threadIdx.x == 0) {
    for (int s = 0; s < NS; ++s) {
      bulk_copy::init(full + s);
      bulk_copy::init(empty + s, unsigned(S));
    }
    bulk_copy::fence_init();
  }
  __syncthreads();

  // Thread 0: unit u's 16 row windows into slot u % NS (rows past n_out: none).
  auto issue = [&](int u) {
    const int tile = int(blockIdx.x) + (u / windows) * int(gridDim.x), j = u % windows;
    const int blocks = nb - j * window_blocks < window_blocks ? nb - j * window_blocks : window_blocks;
    const int rows = p.n_out - tile * tile_rows < tile_rows ? p.n_out - tile * tile_rows : tile_rows;
    const unsigned bytes = unsigned(blocks * block_bytes);
    std::uint64_t* bar = full + u % NS;
    bulk_copy::expect(bar, bytes * unsigned(rows));
    std::byte* slot = smem + std::size_t(u % NS) * slot_bytes;
    for (int r = 0; r < rows; ++r)
      bulk_copy::copy(slot + r * row_pitch,
                      p.weights + std::size_t(tile * tile_rows + r) * p.weight_row_bytes + std::size_t(j) * window_bytes, bytes, bar);
  };

  // The first windows are requested before the activations are staged: they depend neither on
  // them nor (weights_before_wait) on the kernel before this one; activations and outputs do.
  if constexpr (cfg::overlap != launch_overlap::none) dependent_launch::allow_dependents();
  if constexpr (cfg::overlap == launch_overlap::dependent_launch) dependent_launch::wait_for_predecessor();
  if (threadIdx.x == 0)
    for (int u = 0; u < NS - 1 && u < units; ++u) issue(u);
  if constexpr (cfg::overlap == launch_overlap::weights_before_wait) dependent_launch::wait_for_predecessor();

  // Stage the activation rows as B fragments: row i = 8·nt + gi is column gi of n-tile nt; lane
  // (gi, qq) holds its codes 4qq.. and 16+4qq.. (words qq and 4 + qq). Rows >= p.rows: zeros.
  for (int idx = int(threadIdx.x); idx < R * nb; idx += int(blockDim.x)) {
    const int i = idx / nb, b = idx % nb;
    std::uint32_t v[9] = {};
    if (i < p.rows) {
      const auto* src = reinterpret_cast<const std::uint32_t*>(p.acts + std::size_t(i) * p.act_row_bytes + std::size_t(b) * q8_32_block_bytes);
#pragma unroll
      for (int w = 0; w < 9; ++w) v[w] = src[w];
    }
    xs[b * R + i] = __uint_as_float(v[0]);
#pragma unroll
    for (int qq = 0; qq < 4; ++qq) frags[(b * NT + i / 8) * 32 + (i % 8) * 4 + qq] = make_uint2(v[1 + qq], v[5 + qq]);
  }
  __syncthreads();

  float acc[leaves][V];
  int tiles_done = 0;
  for (int u = 0; u < units; ++u) {
    const int s = u % NS, j = u % windows;
    if (threadIdx.x == 0 && u + NS - 1 < units) {
      if (u >= 1) bulk_copy::wait(empty + (u - 1) % NS, unsigned((u - 1) / NS) & 1u);  // every warp left unit u - 1's slot
      issue(u + NS - 1);
    }
    __syncwarp();
    bulk_copy::wait(full + s, unsigned(u / NS) & 1u);
    if (j == 0) {
#pragma unroll
      for (int m = 0; m < leaves; ++m)
#pragma unroll
        for (int v = 0; v < V; ++v) acc[m][v] = 0.0f;
    }
    const std::byte* slot = smem + std::size_t(s) * slot_bytes;
#pragma unroll
    for (int m = 0; m < leaves; ++m) {
      const int leaf = warp + S * m, b = j * window_blocks + leaf;  // leaf l's block of this window
      if (b < nb) {                                                 // uniform across the warp
        std::uint32_t a[4];
        float wd[2];
        load_weight_block(slot + g * row_pitch, leaf, q, wd[0], a[0], a[2]);
        load_weight_block(slot + (g + 8) * row_pitch, leaf, q, wd[1], a[1], a[3]);
#pragma unroll
        for (int nt = 0; nt < NT; ++nt) {
          const uint2 bf = frags[(b * NT + nt) * 32 + lane];
          const float2 xd = *reinterpret_cast<const float2*>(xs + b * R + nt * 8 + 2 * q);
          std::int32_t biased[4];
          mma_s8(biased, a, bf.x, bf.y);
          // quant::q8_0::dot_scale, statement for statement, then ls32's add, per pair
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const float term = (wd[e / 2] * (e % 2 == 0 ? xd.x : xd.y)) * float_of_biased(biased[e]);
            acc[m][nt * 4 + e] = acc[m][nt * 4 + e] + term;
          }
        }
      }
    }
    __syncwarp();
    if (lane == 0) bulk_copy::arrive(empty + s);

    if (j == windows - 1) {
      // This warp's subtree of every pair it holds.
#pragma unroll
      for (int v = 0; v < V; ++v) {
        float subtree[leaves];
#pragma unroll
        for (int m = 0; m < leaves; ++m) subtree[m] = acc[m][v];
        add_subtree(subtree);
        acc[0][v] = subtree[0];
      }
      float* roots = exchange + std::size_t(tiles_done & 1) * S * V * 32;  // [S][V][32]; alternate tiles
#pragma unroll
      for (int v = 0; v < V; ++v) roots[(warp * V + v) * 32 + lane] = acc[0][v];
      __syncthreads();
      // The rest of the tree, a pair a thread.
      const int tile = int(blockIdx.x) + (u / windows) * int(gridDim.x);
      for (int f = int(threadIdx.x); f < V * 32; f += S * 32) {
        const int v = f / 32, holder = f % 32;
        float node[S];
#pragma unroll
        for (int w = 0; w < S; ++w) node[w] = roots[(w * V + v) * 32 + holder];
        const float sum = add_roots(node);
        const int e = v % 4, row = tile * tile_rows + holder / 4 + (e >= 2 ? 8 : 0), i = (v / 4) * 8 + 2 * (holder % 4) + e % 2;
        if (row < p.n_out && i < p.rows) p.out[std::size_t(i) * p.out_stride + row] = sum;
      }
      ++tiles_done;
    }
  }
#else
  (void)p;
#endif
}

/// Launches the kernel when it applies and its preconditions hold: weights 16-byte aligned with
/// every row window in whole granules, activation rows 4-byte aligned, the staged rows fitting in
/// shared memory. Returns false (and launches nothing) otherwise.
template <int R, class Policy>
bool try_launch(const problem& p, gpu::stream_t stream) {
  using cfg = config<Policy>;
  const int nb = p.k / quant::q8_0::dot_elems;
  if (nb <= 0 || p.n_out <= 0) return false;
  if ((reinterpret_cast<std::uintptr_t>(p.weights) & 15) != 0 || !int8_dot_streaming::windows_in_granules<q8_0_decoder>(p))
    return false;
  if ((reinterpret_cast<std::uintptr_t>(p.acts) & 3) != 0 || (p.act_row_bytes & 3) != 0) return false;
  const std::size_t smem = smem_layout<R, Policy>(nb).total;
  const int resident = gpu::resident_ctas<&kernel<R, Policy>>(cfg::subtrees * 32, smem);
  if (resident == 0) return false;
  const int tiles = (p.n_out + tile_rows - 1) / tile_rows;
  const int grid = tiles < resident ? tiles : resident;
  if constexpr (cfg::overlap == launch_overlap::none) {
    kernel<R, Policy><<<unsigned(grid), cfg::subtrees * 32, smem, gpu::native(stream)>>>(p);
    ORDO_GPU_CHECK_LAUNCH();
  } else {
    dependent_launch::launch(kernel<R, Policy>, unsigned(grid), unsigned(cfg::subtrees * 32), smem, stream, p);
  }
  return true;
}
#endif

}  // namespace ordo::ops::qmv::int8_mma_tree
