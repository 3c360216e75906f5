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
/// lane a block) and their scales as [block][row]. `issuers` warps (one lane each) request the
/// slot `stages - 1` ahead, each its share of the rows, once every warp has released it (an
/// "empty" barrier of S arrivals).
/// Applies to Q8_0 at R >= Policy::mma_min_rows (8 unless the Policy says otherwise; below a
/// multiple of 8 the missing activation rows are zeros whose sums are never written), rows in
/// whole 16-byte granules (the bulk copies); try_launch says false elsewhere and
/// kernel.hpp runs the dp4a streaming kernel (int8_dot_streaming.hpp), the same bits.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "ordo/gpu/device_api.hpp"
#include "ordo/gpu/intrinsics.hpp"
#include "ordo/gpu/resident_grid.hpp"
#include "ordo/ops/qmv/bulk_copy.hpp"
#include "ordo/ops/qmv/dependent_launch.hpp"
#include "ordo/ops/qmv/int8_block_decoders.hpp"
#include "ordo/ops/qmv/int8_dot_streaming.hpp"
#include "ordo/ops/qmv/int8_mma_parts.hpp"
#include "ordo/ops/qmv/mma_switch.hpp"
#include "ordo/ops/qmv/problem.hpp"
#include "ordo/ops/qmv/staged_activations.hpp"

namespace ordo::ops::qmv::int8_mma_tree {

/// Shape of the kernel; a Policy may override each with a member of the same name prefixed `mma_`
/// (none changes bits): `subtrees` warps a CTA (a power of two, 2..32), `stages` ring slots,
/// `min_rows` the smallest tier that takes this kernel (> 16: never), `issuers` the warps that
/// request the ring's row windows (16 / issuers rows each).
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
  static constexpr int issuers = [] {
    if constexpr (requires { Policy::mma_issuers; }) return int(Policy::mma_issuers);
    else return subtrees < 16 ? subtrees : 16;
  }();
  static constexpr launch_overlap overlap = int8_dot_streaming::config<Policy, q8_0_decoder>::overlap;
  static_assert(subtrees >= 2 && subtrees <= 32 && (subtrees & (subtrees - 1)) == 0, "subtrees: a power of two in 2..32");
  static_assert(issuers >= 1 && issuers <= subtrees && 16 % issuers == 0, "issuers: a divisor of 16, at most one a warp");
  static_assert(stages >= 2, "stages: at least 2");
};

/// Whether the kernel serves format F at tier R under Policy.
template <class F, int R, class Policy>
inline constexpr bool applies = std::is_same_v<F, quant::q8_0> && R >= config<Policy>::min_rows;

/// Activation rows as the mma sees them: R rounded up to its 8-row n-tiles (the rest staged as zeros).
template <int R>
inline constexpr int padded_rows = (R + 7) / 8 * 8;

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

/// Shared memory of one CTA, in this order: the ring's slots; the activation B fragments (RP·nb·32
/// bytes, RP = padded_rows<R>); their scales (RP·nb floats); two exchange buffers of the subtree
/// roots; the barriers.
template <int R, class Policy>
struct smem_layout {
  static constexpr int S = config<Policy>::subtrees, stages = config<Policy>::stages, values = padded_rows<R> / 2;
  std::size_t frags, scales, exchange, barriers, total;
  ORDO_HD explicit smem_layout(int nb) {
    frags = std::size_t(stages) * slot_bytes;
    scales = frags + std::size_t(padded_rows<R>) * nb * 32;
    exchange = (scales + std::size_t(padded_rows<R>) * nb * 4 + 15) / 16 * 16;
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
__global__ void __launch_bounds__(config<Policy>::subtrees * 32, 1) kernel(problem p) {
#if defined(ORDO_DEVICE_PASS)
  using cfg = config<Policy>;
  constexpr int S = cfg::subtrees, NS = cfg::stages, RP = padded_rows<R>, NT = RP / 8, V = 4 * NT, leaves = window_blocks / S;
  constexpr int block_bytes = quant::q8_0::block_bytes;
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32, g = lane / 4, q = lane % 4;
  const int nb = p.k / quant::q8_0::dot_elems;
  const int windows = (nb + window_blocks - 1) / window_blocks;
  const int tiles = (p.n_out + tile_rows - 1) / tile_rows;
  const int my_tiles = int(blockIdx.x) < tiles ? (tiles - int(blockIdx.x) + int(gridDim.x) - 1) / int(gridDim.x) : 0;
  const int units = my_tiles * windows;  // unit u: tile blockIdx.x + (u / windows)·gridDim.x, window u % windows, slot u % stages

  auto* smem = reinterpret_cast<std::byte*>(ordo_qmv_int8_mma_tree_smem);
  const smem_layout<R, Policy> L(nb);
  auto* frags = reinterpret_cast<uint2*>(smem + L.frags);  // [nb][NT][32 lanes]: (codes 4q.., codes 16+4q..)
  auto* xs = reinterpret_cast<float*>(smem + L.scales);    // [nb][RP]
  auto* exchange = reinterpret_cast<float*>(smem + L.exchange);
  auto* full = reinterpret_cast<std::uint64_t*>(smem + L.barriers);
  std::uint64_t* empty = full + NS;
  if (threadIdx.x == 0) {
    for (int s = 0; s < NS; ++s) {
      bulk_copy::init(full + s, unsigned(cfg::issuers));
      bulk_copy::init(empty + s, unsigned(S));
    }
    bulk_copy::fence_init();
  }
  __syncthreads();

  // Lane 0 of warp w < issuers: its 16 / issuers of the next unit's row windows into the next slot
  // (rows past n_out: none), the units in order (one thread issuing all 16 bulk copies serialized
  // the ring on its issue). Its own place in the walk: tile, window, slot.
  constexpr int issued_rows = tile_rows / cfg::issuers;
  const bool issuer = lane == 0 && warp < cfg::issuers;
  int issue_tile = int(blockIdx.x), issue_j = 0, issue_s = 0;
  auto issue_next = [&] {
    const int blocks = nb - issue_j * window_blocks < window_blocks ? nb - issue_j * window_blocks : window_blocks;
    const int live = p.n_out - issue_tile * tile_rows < tile_rows ? p.n_out - issue_tile * tile_rows : tile_rows;
    const int r0 = warp * issued_rows, r1 = r0 + issued_rows < live ? r0 + issued_rows : live;
    const unsigned bytes = unsigned(blocks * block_bytes);
    std::uint64_t* bar = full + issue_s;
    bulk_copy::expect(bar, r1 > r0 ? bytes * unsigned(r1 - r0) : 0u);
    std::byte* slot = smem + std::size_t(issue_s) * slot_bytes;
    const std::byte* src = p.weights + std::size_t(issue_tile * tile_rows + r0) * p.weight_row_bytes + std::size_t(issue_j) * window_bytes;
    for (int r = r0; r < r1; ++r, src += p.weight_row_bytes) bulk_copy::copy(slot + r * row_pitch, src, bytes, bar);
    if (++issue_j == windows) issue_j = 0, issue_tile += int(gridDim.x);
    if (++issue_s == NS) issue_s = 0;
  };

  // The first windows are requested before the activations are staged: they depend neither on
  // them nor (weights_before_wait) on the kernel before this one; activations and outputs do.
  if constexpr (cfg::overlap != launch_overlap::none) dependent_launch::allow_dependents();
  if constexpr (cfg::overlap == launch_overlap::dependent_launch) dependent_launch::wait_for_predecessor();
  if (issuer)
    for (int u = 0; u < NS - 1 && u < units; ++u) issue_next();
  if constexpr (cfg::overlap == launch_overlap::weights_before_wait) dependent_launch::wait_for_predecessor();

  // Stage the activation rows as B fragments: row i = 8·nt + gi is column gi of n-tile nt; lane
  // (gi, qq) holds its codes 4qq.. and 16+4qq.. (words qq and 4 + qq). Rows >= p.rows: zeros.
  for (int idx = int(threadIdx.x); idx < RP * nb; idx += int(blockDim.x)) {
    const int i = idx / nb, b = idx % nb;
    std::uint32_t v[9] = {};
    if (i < p.rows) {
      const auto* src = reinterpret_cast<const std::uint32_t*>(p.acts + std::size_t(i) * p.act_row_bytes + std::size_t(b) * q8_32_block_bytes);
#pragma unroll
      for (int w = 0; w < 9; ++w) v[w] = src[w];
    }
    xs[b * RP + i] = __uint_as_float(v[0]);
#pragma unroll
    for (int qq = 0; qq < 4; ++qq) frags[(b * NT + i / 8) * 32 + (i % 8) * 4 + qq] = make_uint2(v[1 + qq], v[5 + qq]);
  }
  __syncthreads();

  // Per thread, once: where its words sit in a slot (rows g and g + 8; every leaf of this warp has
  // the warp's parity, S being even, so one byte_perm and shift serve all; leaf m is 17·S·m / 2
  // words past leaf 0, int8_mma_parts_test), and its fragments' and scales' offsets.
  const block_words first = block_words::of(warp);
  constexpr int leaf_words = 17 * S / 2, pitch_words = row_pitch / 4;
  const int row_word = g * pitch_words;
  const uint2* my_frags = frags + std::size_t(warp) * NT * 32 + lane;  // + b·NT·32 for block b = j·32 + warp + S·m
  const float* my_xs = xs + std::size_t(warp) * RP + 2 * q;           // + b·RP

  float acc[leaves][V];
  // Leaf m of a unit: its block's mma against each n-tile, its terms added in order. The unit's
  // bases: codes / scale words of rows g and g + 8 at leaf 0 (c0, c1, s0, s1), its window's
  // fragments and scales at leaf 0 (fr, xp); leaf m is a constant offset from them.
  auto leaf = [&]<int m>(const std::uint32_t* c0, const std::uint32_t* c1, const std::uint32_t* s0, const std::uint32_t* s1,
                         const uint2* fr, const float* xp) {
    std::uint32_t a[4];
    std::uint16_t d[2];
    load_block_words(c0 + leaf_words * m, s0[leaf_words * m], first.sel, first.scale_shift, a[0], a[2], d[0]);
    load_block_words(c1 + leaf_words * m, s1[leaf_words * m], first.sel, first.scale_shift, a[1], a[3], d[1]);
    const float wd[2] = {f16_scale_to_f32_select(d[0]), f16_scale_to_f32_select(d[1])};
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) {
      const uint2 bf = fr[(S * m * NT + nt) * 32];
      const float2 xd = *reinterpret_cast<const float2*>(xp + S * m * RP + nt * 8);
      std::int32_t biased[4];
      mma_s8(biased, a, bf.x, bf.y);
      // quant::q8_0::dot_scale, statement for statement, then ls32's add, per pair
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float term = (wd[e / 2] * (e % 2 == 0 ? xd.x : xd.y)) * float_of_biased(biased[e]);
        acc[m][nt * 4 + e] = acc[m][nt * 4 + e] + term;
      }
    }
  };

  int tiles_done = 0, s = 0, j = 0, tile = int(blockIdx.x);
  unsigned phase = 0;  // of slot s's barriers this round of the ring
  for (int u = 0; u < units; ++u) {
    if (issuer && u + NS - 1 < units) {
      // every warp left unit u - 1's slot (the one unit u + NS - 1 refills)
      if (u >= 1) bulk_copy::wait(empty + (s + NS - 1) % NS, s == 0 ? phase ^ 1u : phase);
      issue_next();  // unit u + NS - 1
    }
    __syncwarp();
    bulk_copy::wait(full + s, phase);
    if (j == 0) {
#pragma unroll
      for (int m = 0; m < leaves; ++m)
#pragma unroll
        for (int v = 0; v < V; ++v) acc[m][v] = 0.0f;
    }
    const auto* row0 = reinterpret_cast<const std::uint32_t*>(smem + std::size_t(s) * slot_bytes) + row_word;
    const std::uint32_t *c0 = row0 + first.code_word + q, *c1 = c0 + 8 * pitch_words;
    const std::uint32_t *s0 = row0 + first.scale_word, *s1 = s0 + 8 * pitch_words;
    const uint2* fr = my_frags + std::size_t(j) * window_blocks * NT * 32;
    const float* xp = my_xs + std::size_t(j) * window_blocks * RP;
    const int live_leaves = nb - j * window_blocks;  // blocks of this window: leaves below it are live
    if (live_leaves >= window_blocks) {
      [&]<int... M>(std::integer_sequence<int, M...>) { (leaf.template operator()<M>(c0, c1, s0, s1, fr, xp), ...); }(
          std::make_integer_sequence<int, leaves>{});
    } else {  // the short last window: a leaf past it keeps its sum (uniform across the warp)
      [&]<int... M>(std::integer_sequence<int, M...>) {
        ((warp + S * M < live_leaves ? leaf.template operator()<M>(c0, c1, s0, s1, fr, xp) : void()), ...);
      }(std::make_integer_sequence<int, leaves>{});
    }
    __syncwarp();
    if (lane == 0) bulk_copy::arrive(empty + s);
    if (++s == NS) s = 0, phase ^= 1u;
    const bool tile_end = ++j == windows;
    if (tile_end) j = 0;

    if (tile_end) {
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
      // The rest of the tree, a pair a thread: warp w finishes values w, w + S, ... of every holder lane.
#pragma unroll
      for (int k = 0; k < (V + S - 1) / S; ++k) {
        const int v = warp + k * S;
        if (V % S == 0 || v < V) {
          float node[S];
#pragma unroll
          for (int w = 0; w < S; ++w) node[w] = roots[(w * V + v) * 32 + lane];
          const float sum = add_roots(node);
          const int e = v % 4, row = tile * tile_rows + g + (e >= 2 ? 8 : 0), i = (v / 4) * 8 + 2 * q + e % 2;
          if (row < p.n_out && i < p.rows) p.out[std::size_t(i) * p.out_stride + row] = sum;
        }
      }
      ++tiles_done;
      tile += int(gridDim.x);
    }
  }
#else
  (void)p;
#endif
}

/// Launches the kernel when it is enabled (mma_switch.hpp) and its preconditions hold: weights
/// 16-byte aligned with every row window in whole granules, activation rows 4-byte aligned, the
/// staged rows fitting in shared memory. Returns false (and launches nothing) otherwise.
template <int R, class Policy>
bool try_launch(const problem& p, gpu::stream_t stream) {
  using cfg = config<Policy>;
  const int nb = p.k / quant::q8_0::dot_elems;
  if (!enabled() || nb <= 0 || p.n_out <= 0) return false;
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
