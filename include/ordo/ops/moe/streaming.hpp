/// The streaming arrangement of moe's two projection passes (gate_up pass 0 and down) in the
/// lane-strided order, CUDA (sm_80+), for layouts whose formats are each either an int8-block
/// format (scale × exact int8 dot against q8_32: MXFP4, Q8_0; qmv/int8_block_decoders.hpp) or a
/// chunk-cooperative K-quant (IQ2_XXS, Q2_K against q8_k; qmv/int_chunk_cooperative.hpp) — the
/// mxfp4, q8_0 and q2 layouts. It is qmv's streaming kernel (qmv/int8_dot_streaming.hpp) applied to
/// the grouped step:
///   - persistent CTAs; each builds the unit list (body.hpp) and a table of the units' passes (a
///     pass: ≤ R pairs of one unit). A gate_up work item is (pass, config::gate_up_out_rows output
///     rows): those expert rows of gate and of up, so both projections of a pair end in one warp
///     and the SwiGLU epilogue runs there; items are dealt to warps in rounds (item_deal.hpp). A
///     down work item is config::down_rows output rows: it
///     walks every pass of every unit for its rows, each pair's partial lands in its (row, slot)
///     place, and the row's slots are summed last in steps::weighted_sum order (kernel::write_out);
///     where a routed pass is one pair of a chunk format whose rows are one window (the q2
///     layout), a window takes the rows of two passes, each dotted and placed as its own
///     (config::dual_units); or, split (config::down_split), two warps of a CTA walk an item's
///     passes, every other one each or a range each, and meet at a named barrier before its rows
///     are written;
///   - each warp streams its items' weight windows (32 dot blocks: exactly the blocks ls32 gives
///     the lanes, or fewer at a row's end; as many whole windows a slot as its bytes hold,
///     slot_blocks: MXFP4 takes two in the slots sized for Q8_0) into a private ring of config::stages shared-memory
///     buffers (qmv/window_ring.hpp: bulk copies where every window is in 16-byte granules, as
///     DS4's are, else cp.async), stages − 1 windows in flight while one is computed, no CTA
///     barrier after the start;
///     a warp's place in its walk is a cursor that only moves forward (no division per window);
///   - int8-block formats: a lane decodes its block of each row once and dots it (dp4a) against every
///     pair of the pass, x staged once per CTA in shared memory (gate_up) or mid_act read through L1
///     (down); then, per (row, pair), F::dot_scale's `term = (scale · x.d) · (float)isum` and the
///     one-row `acc = acc + term`. Chunk-cooperative formats: qmv's window statement over the
///     staged window (8 chunk lanes a block, exact integer sums, the owner lane's one-row add);
///   - windows in ascending order, then the exact halving butterfly (= order::combine's adds,
///     qmv/halving_butterfly.hpp);
///   - both passes (and the quantize pass between them) launch as dependents of the kernel before
///     (qmv/dependent_launch.hpp): a pass requests its first shared-expert windows, then waits for
///     that kernel, then reads the routing, x or mid_act.
/// So each pair's projection has the bits of the generic arrangement (kernel.hpp) and of the CPU
/// executor at every tier (E1, E2). gate_up's pass 1 (quantizing mid) stays the generic one.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "ordo/gpu/portability.hpp"
#include "ordo/ops/moe/body.hpp"
#include "ordo/ops/moe/item_deal.hpp"
#include "ordo/ops/qmv/bulk_copy.hpp"
#include "ordo/ops/qmv/dependent_launch.hpp"
#include "ordo/ops/qmv/int8_block_decoders.hpp"
#include "ordo/ops/qmv/int_chunk_cooperative.hpp"
#include "ordo/ops/qmv/staged_activations.hpp"
#include "ordo/order/orders.hpp"
#include "ordo/quant/formats.hpp"
#if defined(ORDO_GPU_CUDA)
#include "ordo/gpu/device_api.hpp"
#include "ordo/gpu/resident_grid.hpp"
#include "ordo/gpu/intrinsics.hpp"
#include "ordo/gpu/warp_scan.hpp"
#include "ordo/ops/qmv/window_ring.hpp"
#include "ordo/ops/qmv/halving_butterfly.hpp"
#endif

namespace ordo::ops::moe::streaming {

/// How a format's windows are dotted: int8 blocks (one 32-element block per lane) or the
/// chunk-cooperative arrangement (256-element blocks, 8 chunk lanes each).
template <class F>
inline constexpr bool int8_blocks = qmv::has_int8_decoder<F>;
template <class F>
inline constexpr bool chunk_blocks = qmv::int_chunk_cooperative::applies<F, order::lane_strided>;
template <class F>
inline constexpr bool streamable = int8_blocks<F> || chunk_blocks<F>;

/// Whether layout L in order Order runs streamed.
template <class L, class Order>
inline constexpr bool applies = std::is_same_v<Order, order::lane_strided> && streamable<typename L::gate_up> &&
                                streamable<typename L::down> && streamable<typename L::shared>;

inline constexpr int window_blocks = 32;  // ls32: one dot block per lane
/// A chunk format's row is staged whole, as one window of at most this many blocks (DS4's IQ2_XXS
/// gate/up rows have 16, its Q2_K down rows 8); a longer row runs the generic passes.
inline constexpr int chunk_window_blocks = 16;

/// Stage bytes of one row's window of F (+16: a window starts anywhere in a 16-byte chunk).
template <class F>
inline constexpr int row_stage_bytes = ((int8_blocks<F> ? window_blocks : chunk_window_blocks) * F::block_bytes + 16 + 15) / 16 * 16;
template <class A, class B>
inline constexpr int row_stage_bytes_of_both = row_stage_bytes<A> > row_stage_bytes<B> ? row_stage_bytes<A> : row_stage_bytes<B>;

/// Dot blocks of F a ring slot's row of SRB bytes takes at a time: int8-block formats as many
/// 32-block windows as fit (MXFP4's 17-byte blocks: two in a slot sized for the shared expert's
/// Q8_0, so its rows come in half the requests, waits and cursor steps, with twice the bytes in
/// flight), chunk formats their whole row, of at most chunk_window_blocks and what the slot holds.
template <class F, int SRB>
inline constexpr int slot_blocks = [] {
  if constexpr (int8_blocks<F>) {
    constexpr int windows = (SRB - 16) / (window_blocks * F::block_bytes);
    return window_blocks * (windows > 0 ? windows : 1);
  } else {
    constexpr int held = (SRB - 16) / F::block_bytes;
    return held < chunk_window_blocks ? held : chunk_window_blocks;
  }
}();
/// Slot windows of a row of nb dot blocks of F (0: the row does not fit the stage).
template <class F, int SRB>
ORDO_HD constexpr int windows_of(int nb) {
  if constexpr (int8_blocks<F>) return (nb + slot_blocks<F, SRB> - 1) / slot_blocks<F, SRB>;
  else return nb <= slot_blocks<F, SRB> ? 1 : 0;
}

/// Blocks in slot window j of a row of nb blocks, wblk blocks a slot window (fewer at the row's end).
ORDO_HD constexpr int slot_window_count(int nb, int j, int wblk) { return nb - j * wblk < wblk ? nb - j * wblk : wblk; }

/// Whether window_terms walks a block's rows outermost (every live pair's activation words held,
/// one row's codes at a time) rather than its pairs (every row's codes held, one pair's words at a
/// time): whichever holds fewer registers — RW rows of decoder D's code words against R pairs' 8
/// words and scale. Either way each accumulator gets the same term in the same place of its
/// sequence (one a block, ascending), so the bits are the same; only register pressure differs
/// (ptxas: the mxfp4 gate_up at tier 2 spilled 120 bytes holding 4 rows of the split decoder's 16
/// words, bench/moe/kernel_resources.sh).
template <class D, int RW, int R>
inline constexpr bool rows_outer_holds_fewer = RW * D::words > R * 9;

/// Shape of the streamed passes of layout L at tier R under a Policy (a Policy may override each
/// field by the member named in its comment; no preset does; one with `moe_streaming_fixed_shape`
/// takes its own fields at every tier: the bench's variants). None of this changes bits. The
/// shapes, chosen by bench/moe --variants (docs/PERFORMANCE.md, sessions 8-15; session 15 on the
/// H100, µs a step):
///   - narrow: 8 warps a CTA, two CTAs an SM, two output rows a gate_up and a down item, 2 ring
///     stages where the slots are packed (MXFP4 beside Q8_0: two windows a slot) or the routed
///     formats are chunk formats, else 3. Tiers 1-2 of the mxfp4 layout, every tier of the q2
///     layout, 1-7 of the q8_0 layout (one CTA an SM at 3-7: its 3-stage rings). The q2 layout
///     took the wide shape at 7 and up while its routed passes carried the tier's pairs (session
///     13: 746.1 against 765.8 at 7, 834.4 against 954.8 at 8); with passes of one pair the narrow
///     shape is the faster at 7, 8 and 16 (session 19, H100: 335.3/364.7/1038.7 µs a step against
///     453.7/504.2/1070.6 wide).
///   - narrow16 (packed slots, tiers 3-8): 16 warps as one CTA an SM, both passes, and down stages
///     mid_act up to 160 KB. From tier 5 gate_up's rings and its two staged x copies (the MXFP4
///     and the Q8_0 arrangement) leave room for one 8-warp CTA an SM; 16 warps share them (215
///     KB at tier 8): 377.9 against 477.7 at 8, 269.9 against 347.9 at 6, 143.9 against 153.4
///     at 3; at 1 and 2 within 3% of the narrow shape.
///   - narrow_alone (packed slots, tier 16): the narrow shape as one CTA an SM, so up to 255
///     registers for gate_up's 2 · 2 · 16 accumulators: 1152 against 1338 wide (session 15).
///   - chunk16 (chunk layouts, tier 16): 16 warps as one CTA an SM, both passes. The q2 layout's
///     gate_up at 16 rows needs 149 KB (its staged shared-expert x alone 74 KB), so the narrow
///     shape's 8-warp CTAs fit one an SM; 16 warps share the rings and x in 220 KB: 883.5 µs a
///     step against 1021.5 (session 21 call 11, H100), and 5-7% slower than narrow at 5-8.
///   - wide: 16 warps a CTA, one CTA an SM, 2 stages, one output row an item: tiers 8 and 16 of
///     layouts of int8-block formats without packed slots (the q8_0 layout), where the narrow
///     shape's registers (acc: 2 · gate_up rows · R floats) leave an SM 8 warps.
template <class Policy, class L, int R>
struct config {
  /// Whether gate_up's slots take several windows of the routed format (MXFP4 beside Q8_0).
  static constexpr bool packed = slot_blocks<typename L::gate_up, row_stage_bytes_of_both<typename L::gate_up, typename L::shared>> > window_blocks;
  static constexpr bool chunk_layout = chunk_blocks<typename L::gate_up> || chunk_blocks<typename L::down>;
  static constexpr bool fixed = requires { Policy::moe_streaming_fixed_shape; };
  static constexpr bool wide = !fixed && !packed && !chunk_layout && R >= 8;
  static constexpr bool narrow16 = !fixed && packed && R >= 3 && R < 16;
  static constexpr bool narrow_alone = !fixed && packed && R >= 16;
  static constexpr bool chunk16 = !fixed && chunk_layout && R >= 16;
  static constexpr bool one_cta = wide || narrow16 || narrow_alone || chunk16;  // the preset shapes that take an SM alone
  static constexpr int warps = [] {  // per CTA: moe_streaming_warps
    if constexpr (wide || narrow16 || chunk16) return 16;
    else if constexpr (requires { Policy::moe_streaming_warps; }) return int(Policy::moe_streaming_warps);
    else return 8;
  }();
  static constexpr int stages = [] {  // ring buffers per warp (stages − 1 slots in flight): moe_streaming_stages
    if constexpr (wide) return 2;  // 3 and 4 measured no faster at tiers 2-8 (bench/moe variants, session 12)
    else if constexpr (requires { Policy::moe_streaming_stages; }) return int(Policy::moe_streaming_stages);
    else return packed || chunk_layout ? 2 : 3;  // a packed slot in flight is two windows (session 10); q2 at one row: 87.9 µs at 2, 88.4 at 3 (session 15)
  }();
  static constexpr int down_stages = [] {  // down's ring buffers per warp: moe_down_stages
    if constexpr (requires { Policy::moe_down_stages; }) return int(Policy::moe_down_stages);
    else return stages;  // 3 and 4 measured no faster (bench/moe variants, session 12: t1 60.8 µs at 2, 63.8 at 3, 64.0 at 4)
  }();
  static constexpr int gate_up_out_rows = [] {  // output rows of a gate_up item (its window: their gate rows, then their up rows)
    if constexpr (wide) return 1;
    else if constexpr (requires { Policy::moe_gate_up_rows; }) return int(Policy::moe_gate_up_rows);
    else return 2;
  }();
  /// Warps that share a down item, each walking every down_split-th pass of it (moe_down_split).
  /// A down item (down_rows output rows) walks every pass of the step: at DS4's 4096
  /// rows, items of 2 rows (2048) already fill the 2112 warps of two 8-warp CTAs an SM, and items
  /// of 4 rows, whose windows carry twice the bytes for the same book-keeping, left half the warps
  /// idle (session 22 call 2: the q2 step 4-12% slower at 1-8 rows). Split in two, items of 4 rows
  /// feed every warp again. The warps of an item are neighbours in one CTA: warp h (of pair m)
  /// walks passes h, h + split, ... (or a range of them: down_split_shared_weight; split_walk);
  /// each places its pairs' partials in the pair's shared (row, slot) places, and after a named
  /// barrier the first writes the rows out, the sum of the slots in steps::weighted_sum order as
  /// before. Each pair's partial is its own pass's, so the bits are the same.
  /// By default 2 in the q2 layout at tiers 2-8 (where mid_act then stays in global memory:
  /// mid_act_budget) and in the mxfp4 layout from 16 rows (narrow_alone), else 1. bench/moe
  /// variants, session 24 call 1 (H100, µs a step at tiers 1-8 and 16): q2 split without the copy
  /// 63.2/97.1/134.7/159.7/194.2/225.5/272.1/294.3/822.6 against the one-warp items' 61.3/99.8/
  /// 135.9/167.5/214.9/244.7/294.0/321.5/795.7 (8-9% at 5-8; with mid_act's 64 KB copy at 1-4,
  /// 60.9/108.3/150.5/184.4: one CTA an SM); mxfp4 split 59.9/93.7/119.1/149.2/217.4/243.6/303.6/
  /// 338.0/760.3 against 56.7/94.7/118.2/151.9/200.0/221.5/281.8/315.0/914.6 (the one-CTA down at 16
  /// rows, 531 µs of the step, 17% faster; at 5-8 with narrow16's 160 KB of mid_act capped at 64).
  /// Gated as the preset in session 26 (H100: moe.* properties 108/0, moe_gpu_test, engine_gpu_test);
  /// its call 2 (H100), the preset against the one-warp items: q2 96.5/136.4/159.4/195.4/226.1/
  /// 272.9/294.1 µs at 2-8 rows against 99.5/136.7/165.7/213.1/243.6/294.1/320.9, mxfp4 764.7
  /// against 919.7 at 16.
  static constexpr int down_split = [] {
    if constexpr (requires { Policy::moe_down_split; }) return int(Policy::moe_down_split);
    else return (!fixed && chunk_layout && !chunk16 && R >= 2) || narrow_alone ? 2 : 1;
  }();
  static constexpr int down_rows = [] {  // output rows of a down item
    if constexpr (wide) return 1;
    else if constexpr (requires { Policy::moe_down_rows; }) return int(Policy::moe_down_rows);
    else return down_split == 2 ? 4 : 2;  // split items take 4 (down_split)
  }();
  static constexpr int min_ctas = [] {  // gate_up's CTAs an SM must hold (caps registers): moe_streaming_min_ctas
    if constexpr (requires { Policy::moe_streaming_min_ctas; }) return int(Policy::moe_streaming_min_ctas);
    else return !one_cta && (R <= 2 || packed || chunk_layout) ? 2 : 1;
  }();
  static constexpr int down_warps = [] {  // down's warps per CTA: moe_down_warps (by default gate_up's)
    if constexpr (requires { Policy::moe_down_warps; }) return int(Policy::moe_down_warps);
    else return warps;
  }();
  static constexpr int down_min_ctas = [] {  // down's: moe_down_min_ctas (its rings are half gate_up's: 2 narrow CTAs fit at every tier)
    if constexpr (requires { Policy::moe_down_min_ctas; }) return int(Policy::moe_down_min_ctas);
    else if constexpr (requires { Policy::moe_streaming_min_ctas; }) return int(Policy::moe_streaming_min_ctas);
    else return !one_cta ? 2 : 1;
  }();
  /// Whether gate_up deals its items boustrophedon (item_deal.hpp) or round-robin: moe_boustrophedon;
  /// by default boustrophedon where the shared items are the heavier (int8-block routed formats).
  static constexpr bool boustrophedon = [] {
    if constexpr (requires { Policy::moe_boustrophedon; }) return bool(Policy::moe_boustrophedon);
    else return !chunk_blocks<typename L::gate_up>;
  }();
  /// Whether the passes take window_terms' Granular statement where the ring's windows are in
  /// 16-byte granules (moe_streaming_granular): at tiers 1-2 (ncu, session 12: 14.7 M warp
  /// instructions in gate_up at one row against session 10's 15.6 M); above, a second copy of the
  /// window code only grows kernels that unroll it per pair (instruction-cache misses were 22% of
  /// gate_up's stall samples at one row with it at every tier).
  static constexpr bool granular = [] {
    if constexpr (requires { Policy::moe_streaming_granular; }) return bool(Policy::moe_streaming_granular);
    else return R <= 2;
  }();
  /// The activation rows by which a pass of W pairs picks its int8-block decoder
  /// (qmv::int8_decoder_at: the split-sign MXFP4 decoder up to 2): W, so the routed passes of 1-2
  /// pairs at tiers 3 and up take the split decoder too (ncu, session 20: the mxfp4 down at 5 rows
  /// decoded its 1-2-pair passes with the full one). moe_decoder_by_tier: the tier R (the choice
  /// until session 21; bench/moe --variants times both). Either decoder's integer is the block's
  /// exact dot, so no bit changes.
  template <int W>
  static constexpr int decoder_rows = requires { Policy::moe_decoder_by_tier; } ? R : W;
  /// Whether window_terms walks RW rows of F outermost against passes of W pairs (moe_rows_outer:
  /// 1 yes, 0 no; by default, or negative, where that holds fewer registers).
  template <class F, int RW, int W = R>
  static constexpr bool rows_outer = [] {
    constexpr int choice = [] {
      if constexpr (requires { Policy::moe_rows_outer; }) return int(Policy::moe_rows_outer);
      else return -1;
    }();
    if constexpr (!int8_blocks<F>) return false;
    else if constexpr (choice >= 0) return choice > 0;
    else return rows_outer_holds_fewer<qmv::int8_decoder_at<F, decoder_rows<W>>, RW, W>;
  }();
  /// Rows of a chunk format's window that walk together against passes of W pairs (moe_chunk_rows,
  /// capped at the window's RW rows and dividing them; 0: the default;
  /// qmv::int_chunk_cooperative::accumulate_window_rows): by default 4 to 4 pairs, else 2. bench/moe variants, session 17 (H100, q2 layout, narrow shape, µs a step at
  /// tiers 1/2/4/8): one row 82.8/137.5/281.2/891.1, two 77.1/125.1/252.3/761.6, four
  /// 74.9/124.7/248.8/809.6 (four rows spill at tier 8).
  template <int RW, int W = R>
  static constexpr int chunk_rows = [] {
    constexpr int want = [] {
      if constexpr (requires { Policy::moe_chunk_rows; })
        if (Policy::moe_chunk_rows > 0) return int(Policy::moe_chunk_rows);
      return W <= 4 ? 4 : 2;
    }();
    int n = want < RW ? want : RW;
    while (RW % n != 0) --n;
    return n;
  }();
  /// Whether a chunk window's passes of one pair take the decoder's fused decode_dot where it has
  /// one (IQ2_XXS: the sign masks applied as (g ^ m)·x − m·x; int_chunk_decoders.hpp):
  /// moe_fused_sign_dot; by default at tiers 1-4. bench/moe variants, session 21 call 5 (H100, q2,
  /// µs a step at tiers 1-8 and 16): fused at every tier 63.2/103.8/142.2/175.3/228.7/270.7/320.2/
  /// 348.9/1052.0, at none 63.7/104.7/143.1/176.5/227.5/262.0/320.1/344.4/1043.8: 3.5% fewer
  /// instructions in gate_up at one row (ncu, call 3), under 1% faster at 1-4, slower from 5 rows
  /// (3% at 6: the dp4a it adds are not free where integer issue bounds the pass). Either way the
  /// same integers, so the same bits.
  static constexpr bool fused_sign_dot = [] {
    if constexpr (requires { Policy::moe_fused_sign_dot; }) return bool(Policy::moe_fused_sign_dot);
    else return R <= 4;
  }();
  /// Copies of the chunk-cooperative window's 8-step loop body (moe_chunk_step_unroll;
  /// qmv::int_chunk_cooperative::accumulate_window): by default a loop, for the kernels' code size.
  static constexpr int chunk_step_unroll = [] {
    if constexpr (requires { Policy::moe_chunk_step_unroll; }) return int(Policy::moe_chunk_step_unroll);
    else return 1;
  }();
  /// Pairs a routed unit's pass takes at most (moe_routed_pass_pairs, capped at R; 0: the default):
  /// a unit's later pairs take further passes, each reading its windows again (from L2, mostly).
  /// The shared expert's pass takes every row. A routed pass's window statement and epilogue are
  /// built for this many pairs, not R: where the rows' experts are mostly distinct (a unit has a
  /// pair or two at DS4's 6 of 256), tier R's accumulators, sums and live tests cost every pass
  /// without serving it. Each pair's terms are its own whatever pass it is in (E1), so no bit
  /// changes. By default: chunk layouts 1; packed layouts 1 at tier 3, 2 at 4-6 and 16, 4 at 7-8,
  /// else R; other layouts R. bench/moe variants, session 18 (H100, µs a step at tiers 2/4/6/8/16): q2
  /// with R pairs a pass 138.3/245.9/431.9/720.8/2431.5, with 1 pair 112.7/192.5/280.3/508.6/1090.3;
  /// mxfp4 with R 97.9/177.0/269.2/377.4/1024.3, with 2 98.0/175.6/255.8/421.8/973.8, with 4
  /// 98.7/177.1/263.3/350.8/1014.5. Gated as the preset in session 19 (moe properties and GPU
  /// tests on the device). Tier 3's 1: session 19 call 2 (H100) 141.1 µs against 144.2 with 3,
  /// session 20 call 1 (H200) 137.8 against 141.2, with the moe properties on the device. Tier
  /// 4's 2: session 21 call 1 (H100), once passes of 1-2 pairs took the split MXFP4 decoder
  /// (decoder_rows), 154.0 µs against 169.9 with 4 (and 2 at 3: 128.5 against 122.6 with 1; at
  /// 7-8: 307.5/343.6 against 288.3/321.6 with 4).
  static constexpr int routed_pairs = [] {
    constexpr int want = [] {
      if constexpr (requires { Policy::moe_routed_pass_pairs; })
        if (Policy::moe_routed_pass_pairs > 0) return int(Policy::moe_routed_pass_pairs);
      if constexpr (chunk_layout) return 1;
      else if constexpr (packed) return R >= 16 ? 2 : R >= 7 ? 4 : R >= 4 ? 2 : R == 3 ? 1 : R;
      else return R;
    }();
    return want < R ? want : R;
  }();
  static_assert(down_split == 1 || down_split == 2, "a down item is walked by one warp or by two");
  static_assert(down_split == 1 || down_warps % 2 == 0, "split items pair a CTA's warps");
  /// With down_split: the shared expert's pass counted as this many routed passes, so that the
  /// first warp takes it and the item's last routed passes, the second the first ones, about even
  /// (moe_down_split_shared_weight; negative, the default: every other pass each, which leaves the
  /// first warp the shared pass beside half the routed ones: at 8 rows its 2 windows of 8 pairs
  /// and 8.7 KB, where a routed window has one pair and 2.7 KB).
  static constexpr int down_split_shared_weight = [] {
    if constexpr (requires { Policy::moe_down_split_shared_weight; }) return int(Policy::moe_down_split_shared_weight);
    else return -1;
  }();
  /// Whether the down pass takes two routed passes a window where a routed pass is one pair of a
  /// chunk format whose rows are one window (the q2 layout): the window's rows are the item's RW
  /// rows of the first pass's expert, then RW of the second's, each pass dotted and placed as its
  /// own (the same statements), one request, wait, cursor step and butterfly for both. The q2
  /// down pass's routed windows (2 rows of 8 Q2_K blocks) spent ~390 warp instructions a window
  /// outside their ~300 of chunk steps (ncu, session 22). moe_down_dual_units; by default at tiers
  /// 5-8. bench/moe variants, session 22 call 8 (H100, q2, µs a step at tiers 1-8 and 16): one pass
  /// a window 61.6/99.9/137.2/166.5/215.0/250.6/300.8/326.3/794.6, two 62.5/113.2/155.7/191.3/
  /// 214.9/243.9/294.1/320.5/840.1 (with mid_act's 64 KB copy, which then leaves one CTA an SM at
  /// 2-4 rows), two without the copy 63.7/102.0/142.0/170.0/213.7/243.0/294.9/319.8/836.6: 2% at
  /// 6-8 rows, slower where mid_act is copied (1-4) and in chunk16's one CTA at 16. Not with
  /// down_split, which took the q2 layout's tiers 2-8 in session 24 (8-9% faster than two passes a
  /// window at 5-8), so the preset takes it nowhere now; a policy that sets moe_down_split = 1
  /// gets it at 5-8 again.
  static constexpr bool dual_units = [] {
    if constexpr (!chunk_blocks<typename L::down> || routed_pairs != 1 || down_split != 1) return false;
    else if constexpr (requires { Policy::moe_down_dual_units; }) return bool(Policy::moe_down_dual_units);
    else return R >= 5 && !chunk16;
  }();
  /// Rows of a down ring slot: the item's rows, twice with dual_units.
  static constexpr int down_slot_rows = dual_units ? 2 * down_rows : down_rows;
  /// Bytes of a down ring slot's row: room for the longer of the down and shared formats' windows,
  /// or with moe_down_narrow_stage (chunk down formats) the shared format's alone, so a chunk row
  /// streams only where it fits that (DS4's Q2_K rows of 8 blocks, 672 bytes, in the Q8_0 window's
  /// 1104 where Q2_K's own 16-block window wants 1360; a longer row runs the generic down pass).
  /// By default off.
  static constexpr int down_stage_row_bytes = [] {
    if constexpr (chunk_blocks<typename L::down> && requires { Policy::moe_down_narrow_stage; })
      if (Policy::moe_down_narrow_stage) return row_stage_bytes<typename L::shared>;
    return row_stage_bytes_of_both<typename L::down, typename L::shared>;
  }();
  /// Where an IQ2_XXS window's decode finds its tables (moe_iq2_tables; qmv/int_chunk_decoders.hpp):
  /// 0 the format's (the grid in global memory, the sign masks computed), 1 a copy of the grid in
  /// the CTA's shared memory, 2 copies of the grid and of the sign masks. By default 1 (gated as
  /// the preset in session 19). bench/moe
  /// variants, session 18 (H100, q2, µs a step at tiers 1/2/4/6/8): 0 67.8/138.3/245.9/431.9/720.8,
  /// 1 68.5/132.0/240.0/422.6/717.9, 2 74.0/151.3/260.9/445.7/742.5 (R pairs a pass); with passes
  /// of 2 pairs, 0 68.7/138.9/237.7/371.9/535.5 and 1 69.2/132.2/228.9/356.7/518.9.
  static constexpr int iq2_tables = [] {
    if constexpr (requires { Policy::moe_iq2_tables; }) return int(Policy::moe_iq2_tables);
    else return 1;
  }();
  /// The most shared memory a down CTA spends on staged mid_act rows (stage_mid_act; chunk
  /// formats: copied ones, copy_mid_act):
  /// moe_mid_act_budget (bytes). 64 KB stages tiers 1-4 at DS4's dims with two CTAs an SM, 160 KB
  /// tiers 3-8 in narrow16's one CTA (269.9 µs a step at 6 rows against 306.1 with 64 KB). down at
  /// one and two rows (staged) ran at 1.75 and 1.68 TB/s of weights, at three (from global memory)
  /// 1.19 (session 15, H100, --passes); the step at 4 rows 190.9 µs with 64 KB against 202.7 with
  /// 32 KB (tiers 1-2, the budget until session 15). (dual_units' doubled rings, 87 KB a CTA, serve
  /// tiers whose mid_act DS4's dims do not copy.)
  static constexpr std::size_t mid_act_budget = [] {
    if constexpr (requires { Policy::moe_mid_act_budget; }) return std::size_t(Policy::moe_mid_act_budget);
    // split q2 items: with the copy one CTA an SM, 108.3 µs at 2 rows against 97.1 (session 24)
    else if constexpr (chunk_layout && down_split == 2) return std::size_t(0);
    else return std::size_t(narrow16 ? 160 : 64) * 1024;
  }();
  /// The most shared memory a gate_up CTA spends on a copy of the routed x rows (copy_x_routed;
  /// chunk formats): moe_x_copy_budget (bytes). 20 KB copies tiers 1-4 at DS4's dims (4672 bytes
  /// of q8_K a row), where two CTAs an SM still fit; above, 0, and the copy is not built: its code
  /// alone took the q2 layout's step at 16 rows from 1021 to 1044-1050 µs (session 21 call 5,
  /// H100; gate_up spills there).
  static constexpr std::size_t x_copy_budget = [] {
    if constexpr (requires { Policy::moe_x_copy_budget; }) return std::size_t(Policy::moe_x_copy_budget);
    else return std::size_t(R <= 4 ? 20 : 0) * 1024;
  }();
  /// Whether windows in 16-byte granules come by bulk copies (qmv/window_ring.hpp): moe_streaming_bulk.
  static constexpr bool bulk = [] {
    if constexpr (requires { Policy::moe_streaming_bulk; }) return bool(Policy::moe_streaming_bulk);
    else return true;
  }();
};

/// The rows a kernel's streamed passes are built for: its tier, except tier 7 of a layout in
/// narrow16 (the mxfp4 layout), built as 8. Each pair's terms are its own whatever pass it is in
/// (E1), so the bits are tier 7's; and with a row's experts distinct (the router's), a unit has
/// at most 7 pairs, so even the passes are the same. Only the accumulators and the code are tier
/// 8's: tier 7's own gate_up was 101 KB of machine code with 60 / 84 bytes of spills against tier
/// 8's 80 KB (bench/moe/kernel_resources.sh), and its step ran at 49% of copy bandwidth against
/// 59% at 6 and 54% at 8 (session 15, H100).
template <class Kernel>
inline constexpr int built_rows =
    Kernel::tier == 7 && config<typename Kernel::policy, typename Kernel::layout, 7>::narrow16 ? 8 : Kernel::tier;
template <class Kernel>
using config_of = config<typename Kernel::policy, typename Kernel::layout, built_rows<Kernel>>;

/// Each unit's passes, in unit order: unit u's passes are [first[u], first[u + 1]) (u = 0: the
/// shared expert, one pass since rows <= R; a routed unit's passes take PR pairs each, the last
/// the rest); every unit has a pair, so first is strictly increasing.
template <int R>
struct pass_table {
  int first[unit_list<R>::max_pairs + 2];
  int units;  // routed units + 1
  ORDO_HD int total() const { return first[units]; }
};

/// The most pairs a pass of unit u takes: R for the shared expert (u = 0), PR for a routed unit.
template <int R, int PR>
ORDO_HD ORDO_FORCEINLINE constexpr int pass_pairs(int u) { return u == 0 ? R : PR; }

/// The pass table of a unit list (the host's form: the reference fill_pass_table_warp equals,
/// tests/unit/ops/moe/streaming_test).
template <int R, int PR>
ORDO_HD inline void fill_pass_table(const problem& p, const unit_list<R>& ul, pass_table<R>& t) {
  t.units = ul.n_units + 1;
  t.first[0] = 0;
#pragma unroll 1
  for (int u = 0; u < t.units; ++u) t.first[u + 1] = t.first[u] + (unit_pair_count(ul, p, u) + pass_pairs<R, PR>(u) - 1) / pass_pairs<R, PR>(u);
}

inline constexpr std::size_t round16(std::size_t a) { return (a + 15) / 16 * 16; }
/// Shared memory before the rings: the unit list and the pass table.
template <int R>
inline constexpr std::size_t head_bytes = round16(sizeof(unit_list<R>)) + round16(sizeof(pass_table<R>));
/// ... and with the warps' ring barriers (bulk copies: one a ring slot).
template <int R, int Warps, int Stages>
inline constexpr std::size_t cta_head_bytes = head_bytes<R> + round16(std::size_t(Warps) * Stages * sizeof(std::uint64_t));

/// Whether every window of p's weight rows starts and ends on a 16-byte boundary, so bulk copies
/// can bring it (bulk_copy.hpp): the tensors are 16-byte aligned (can_stream), so row and expert strides,
/// whole windows and each row's data must be 16-byte multiples. DS4's rows are; odd test shapes
/// take the cp.async path.
template <class L>
ORDO_HD inline bool windows_in_granules(const problem& p) {
  auto g = [](std::size_t bytes) { return bytes % qmv::bulk_copy::granule == 0; };
  auto rows_ok = [&](auto format, int k) {
    using F = decltype(format);
    const std::size_t row_data = std::size_t(k / F::dot_elems) * F::block_bytes;
    if constexpr (int8_blocks<F>) return g(row_data) && g(std::size_t(window_blocks) * F::block_bytes);
    else return g(row_data);
  };
  using GU = typename L::gate_up;
  using D = typename L::down;
  using S = typename L::shared;
  return g(p.gate.row_bytes) && g(p.gate.expert_bytes) && g(p.up.row_bytes) && g(p.up.expert_bytes) && g(p.down.row_bytes) &&
         g(p.down.expert_bytes) && g(p.shared_gate.row_bytes) && g(p.shared_up.row_bytes) && g(p.shared_down.row_bytes) &&
         rows_ok(GU{}, p.n_embd) && rows_ok(S{}, p.n_embd) && rows_ok(D{}, p.n_ff) && rows_ok(S{}, p.n_ff);
}
/// Bytes of R staged q8_32 activation rows of nb blocks (codes, then scales), a 16-byte multiple.
inline constexpr std::size_t staged_act_bytes(int R, int nb) { return round16(qmv::staged_q8_32_bytes(R, nb)); }

/// The tables a window of format F decodes with under config::iq2_tables mode `mode`.
template <class F, int mode>
using window_tables =
    std::conditional_t<std::is_same_v<F, quant::iq2_xxs> && mode != 0, qmv::iq2_copied_tables<mode == 2>, qmv::format_tables>;
/// Shared-memory bytes of copied tables T (none for the formats' own), a 16-byte multiple.
template <class T>
inline constexpr std::size_t tables_bytes = [] {
  if constexpr (qmv::is_iq2_copied<T>) return round16(std::size_t(T::words) * sizeof(std::uint64_t));
  else return std::size_t(0);
}();
/// Bytes of the down pass's partials: [RW][R][slots_per_row] floats for each of Walkers items in
/// flight (a warp's, or a split item's warps' together), a 16-byte multiple.
template <int R, int Walkers, int RW>
inline constexpr std::size_t down_partial_bytes = round16(std::size_t(Walkers) * RW * R * slots_per_row * sizeof(float));

/// Whether gate_up stages the shared expert's x apart from the routed x: when the routed format
/// does not stage x (chunk formats read it from global memory), when the rows differ, or when the
/// two decoders want the activation bytes in different arrangements.
template <class GU, class S>
inline constexpr bool shared_arrangement_differs = [] {
  if constexpr (int8_blocks<GU> && int8_blocks<S>) return qmv::int8_decoder<GU>::arranges_x != qmv::int8_decoder<S>::arranges_x;
  else return false;
}();
/// Whether the down pass stages every pair's mid_act row in shared memory (once per CTA; int8-block
/// formats, where they fit `budget` bytes, config::mid_act_budget: tiers 1–4 at DS4's dims by
/// default), each row in the arrangement of the decoder that reads it (the shared slot's, the
/// routed slots'), instead of loading each window's blocks from global memory per pair.
template <class D, class S, int R>
ORDO_HD inline bool stage_mid_act(const problem& p, std::size_t budget) {
  if constexpr (int8_blocks<D> && int8_blocks<S> && D::dot_elems == S::dot_elems)
    return staged_act_bytes(R * (p.n_used + 1), p.n_ff / D::dot_elems) <= budget;
  else return false;
}
/// Whether `bytes` from `src` go to shared memory as a copy in 16-byte granules within `budget`
/// (src by reference: read only once the sizes pass, as the tests were written before, so the
/// kernels' machine code stays what the device gated).
template <class Ptr>
ORDO_HD ORDO_FORCEINLINE bool copies_in_granules(std::size_t bytes, const Ptr& src, std::size_t budget) {
  return bytes <= budget && bytes % 16 == 0 && (reinterpret_cast<std::uintptr_t>(src) & 15) == 0;
}
/// Bytes of p's mid_act rows, every row's n_used + 1 slots (they lie contiguous).
ORDO_HD inline std::size_t mid_act_copy_bytes(const problem& p) {
  return std::size_t(p.rows) * std::size_t(p.n_used + 1) * p.mid_act_row_bytes;
}
/// Whether the down pass copies p's mid_act rows as they lie into shared memory (once per CTA;
/// chunk formats, whose windows read each activation block where it lies: the routed passes then
/// read the copy), where they fit `budget` bytes (config::mid_act_budget: tiers 1-4 at DS4's dims
/// in the q2 layout) and lie in 16-byte granules. In place of global loads at every chunk step
/// (L1 or L2 hits, a latency each). int8-block formats stage instead (stage_mid_act).
template <class D>
ORDO_HD inline bool copy_mid_act(const problem& p, std::size_t budget) {
  if constexpr (int8_blocks<D>) return false;
  else {
    return copies_in_granules(mid_act_copy_bytes(p), p.mid_act, budget);
  }
}
/// Bytes of p's routed x rows (they lie contiguous).
ORDO_HD inline std::size_t x_routed_copy_bytes(const problem& p) { return std::size_t(p.rows) * p.x_routed_row_bytes; }
/// Whether gate_up copies p's routed x rows as they lie into shared memory (once per CTA; chunk
/// formats, which read each activation block where it lies: the routed passes then read the copy),
/// where they fit `budget` bytes (config::x_copy_budget) and lie in 16-byte granules: the q2
/// layout's routed passes loaded each chunk's 32 activation bytes from global memory as 8 words
/// at a 32-byte stride between lanes (ncu, session 21: 87% of those loads' sectors excessive, and
/// 12% of the pass's stall samples waiting on them).
template <class GU>
ORDO_HD inline bool copy_x_routed(const problem& p, std::size_t budget) {
  if constexpr (int8_blocks<GU>) return false;  // staged instead
  else {
    return copies_in_granules(x_routed_copy_bytes(p), p.x_routed, budget);
  }
}
template <class GU, class S>
ORDO_HD inline bool stage_shared_apart(const problem& p) {
  return !int8_blocks<GU> || shared_arrangement_differs<GU, S> || p.x_shared != p.x_routed ||
         p.x_shared_row_bytes != p.x_routed_row_bytes;
}

/// Bytes of gate_up's staged x (int8-block formats: the routed rows, then the shared rows where
/// stage_shared_apart), after the rings.
template <class L, int R>
ORDO_HD inline std::size_t gate_up_act_bytes(const problem& p) {
  using GU = typename L::gate_up;
  using S = typename L::shared;
  std::size_t acts = 0;
  if constexpr (int8_blocks<GU>) acts += staged_act_bytes(R, p.n_embd / GU::dot_elems);
  if constexpr (int8_blocks<S>)
    if (stage_shared_apart<GU, S>(p)) acts += staged_act_bytes(R, p.n_embd / S::dot_elems);
  return acts;
}

/// Shared memory of the streamed passes of layout L at tier R under Policy (gate_up's depends on
/// p's x rows).
template <class L, int R, class Policy>
inline std::size_t gate_up_smem(const problem& p) {
  using GU = typename L::gate_up;
  using S = typename L::shared;
  using cfg = config<Policy, L, R>;
  const std::size_t x_copy = copy_x_routed<GU>(p, cfg::x_copy_budget) ? x_routed_copy_bytes(p) : 0;
  return cta_head_bytes<R, cfg::warps, cfg::stages> + std::size_t(cfg::warps) * cfg::stages * 2 * cfg::gate_up_out_rows * row_stage_bytes_of_both<GU, S> +
         gate_up_act_bytes<L, R>(p) + tables_bytes<window_tables<GU, cfg::iq2_tables>> + x_copy;
}
template <class L, int R, class Policy>
inline std::size_t down_smem(const problem& p) {
  using cfg = config<Policy, L, R>;
  using D = typename L::down;
  using S = typename L::shared;
  std::size_t mid = 0;
  if constexpr (int8_blocks<D>) {
    if (stage_mid_act<D, S, R>(p, cfg::mid_act_budget)) mid = staged_act_bytes(R * (p.n_used + 1), p.n_ff / D::dot_elems);
  } else if (copy_mid_act<D>(p, cfg::mid_act_budget)) {
    mid = mid_act_copy_bytes(p);
  }
  return cta_head_bytes<R, cfg::down_warps, cfg::down_stages> +
         std::size_t(cfg::down_warps) * cfg::down_stages * cfg::down_slot_rows * cfg::down_stage_row_bytes +
         down_partial_bytes<R, cfg::down_warps / cfg::down_split, cfg::down_rows> + mid;
}

/// The down pass's walks (a warp's work items): its row groups of Cfg::down_rows rows, each walked by
/// Cfg::down_split warps.
template <class Cfg>
inline long down_walks(const problem& p) {
  return long((p.n_embd + Cfg::down_rows - 1) / Cfg::down_rows) * Cfg::down_split;
}

/// The passes a warp of a split down item walks (config::down_split H; Ranges:
/// config::down_split_shared_weight >= 0): warp `half` from pass half on, to next(k) after pass k,
/// until end(passes). Every other pass each, or in ranges: the first warp the shared pass 0 and
/// passes last + 1 .. passes - 1, the second passes 1 .. last.
template <int H, bool Ranges>
struct split_walk {
  int half;
  int last = 0;  // Ranges: the second warp's last pass, once the pass table is built
  /// The second warp's last pass for `passes` passes (>= 2), the shared pass weighing `weight`.
  ORDO_HD ORDO_FORCEINLINE static int last_of(int passes, int weight) {
    const int routed = passes - 1, m = (routed + weight) / 2;
    return m < 1 ? 1 : m > routed ? routed : m;
  }
  ORDO_HD ORDO_FORCEINLINE int next(int k) const {
    if constexpr (Ranges) return half == 0 && k == 0 ? last + 1 : k + 1;
    else return k + H;
  }
  ORDO_HD ORDO_FORCEINLINE int end(int passes) const {
    if constexpr (Ranges) return half == 0 ? passes : last + 1;
    else return passes;
  }
};

#if defined(ORDO_GPU_CUDA)
extern __shared__ uint4 ordo_moe_streaming_smem[];

#if defined(ORDO_DEVICE_PASS)
/// fill_pass_table by one warp (its lanes 0..31; the unit list complete for them): each unit's
/// pass count, then an inclusive sum over the units, 32 at a time, in place of thread 0's walk (a
/// shared-memory latency and a division a unit while the CTA waited). Ends with gpu::sync_warp.
template <int R, int PR>
ORDO_DEVICE inline void fill_pass_table_warp(const problem& p, const unit_list<R>& ul, pass_table<R>& t, int lane) {
  const int units = ul.n_units + 1;
  int total = 0;
#pragma unroll 1
  for (int u0 = 0; u0 < units; u0 += gpu::logical_warp) {
    const int u = u0 + lane;
    const int passes = u < units ? (unit_pair_count(ul, p, u) + pass_pairs<R, PR>(u) - 1) / pass_pairs<R, PR>(u) : 0;
    const int sum = gpu::inclusive_sum_i32(passes, lane);
    if (u < units) t.first[u + 1] = total + sum;
    total += gpu::shfl_i32(sum, gpu::logical_warp - 1);
  }
  if (lane == 0) {
    t.first[0] = 0;
    t.units = units;
  }
  gpu::sync_warp();
}

/// A streamed pass's shared memory: the unit list and the pass table (built by every thread of the
/// CTA in build, which ends with a barrier), the warps' ring barriers (Stages each), then the
/// warps' rings of RingBytes each, then what the pass keeps after them (staged x, or the partials).
template <int R, int Warps, int Stages, int RingBytes>
struct cta_memory {
  unit_list<R>& ul;
  pass_table<R>& table;
  std::uint64_t* bars;
  std::byte* rings;
  std::byte* after_rings;
  explicit ORDO_DEVICE cta_memory(uint4* smem)
      : ul(*reinterpret_cast<unit_list<R>*>(smem)),
        table(*reinterpret_cast<pass_table<R>*>(reinterpret_cast<std::byte*>(smem) + round16(sizeof(unit_list<R>)))),
        bars(reinterpret_cast<std::uint64_t*>(reinterpret_cast<std::byte*>(smem) + head_bytes<R>)),
        rings(reinterpret_cast<std::byte*>(smem) + cta_head_bytes<R, Warps, Stages>),
        after_rings(rings + std::size_t(Warps) * RingBytes) {}
  /// The unit list and the pass table (routed passes of at most PR pairs) from p's routing (every
  /// thread of the CTA; ends with a barrier).
  template <int PR>
  ORDO_DEVICE void build(const problem& p) const {
    build_units_cta<steps, R>(p, ul);  // the first warp ends with the list
    if (int(threadIdx.x) < gpu::logical_warp) fill_pass_table_warp<R, PR>(p, ul, table, int(threadIdx.x));
    __syncthreads();
  }
  ORDO_DEVICE std::byte* ring(int warp) const { return rings + std::size_t(warp) * RingBytes; }
  ORDO_DEVICE std::uint64_t* ring_bars(int warp) const { return bars + std::size_t(warp) * Stages; }
};

/// The windows a warp has requested and not yet computed, oldest first (Stages − 1 of them once the
/// ring is primed). The compute walk is the request walk Stages − 1 windows behind, so the compute
/// side copies the request cursor instead of walking the items a second time (a second settle of
/// every item: the unit scan, the row pointers, the deal's division).
template <class Cursor, int Stages>
struct issued_windows {
  static_assert(Stages >= 2, "a ring of one stage has no window in flight while one is computed");
  Cursor w[Stages - 1];
  ORDO_DEVICE ORDO_FORCEINLINE const Cursor& oldest() const { return w[0]; }
  /// The oldest is computed: drops it and appends c, the window just requested.
  ORDO_DEVICE ORDO_FORCEINLINE void push_pop(const Cursor& c) {
#pragma unroll
    for (int t = 0; t + 1 < Stages - 1; ++t) w[t] = w[t + 1];
    w[Stages - 2] = c;
  }
};

/// The down cursor's second routed pass (config::dual_units; none without): its pass (0: none),
/// unit, first pair and down matrix. Apart, so the one-pass cursor is what it was.
template <bool Dual>
struct second_pass_fields {};
template <>
struct second_pass_fields<true> {
  int k2, u2, j02;
  const std::byte* base2;
};

/// f(width) with the most pairs a pass of unit u takes as a compile-time constant (pass_pairs):
/// a routed pass's work is built for PR pairs, the shared expert's for R.
template <int R, int PR, class Fn>
ORDO_DEVICE ORDO_FORCEINLINE void with_pass_width(int u, Fn&& f) {
  if (PR == R || u == 0) f(std::integral_constant<int, R>{});
  else f(std::integral_constant<int, PR>{});
}

/// Named barrier Id of Threads threads (bar.sync also orders their shared-memory stores).
template <int Id, int Threads>
ORDO_DEVICE ORDO_FORCEINLINE void named_barrier() {
  asm volatile("bar.sync %0, %1;" ::"n"(Id), "n"(Threads) : "memory");
}
/// The barrier of the H warps that walk the passes of down item group m of a CTA's Groups
/// (config::down_split): named barrier 1 + m (0 is __syncthreads'). The id is a constant in each
/// branch: with it in a register ptxas reserves all 16 of the CTA's named barriers.
template <int H, int Groups>
ORDO_DEVICE ORDO_FORCEINLINE void item_warps_barrier(int m) {
  [&]<int... I>(std::integer_sequence<int, I...>) {
    ((m == I ? named_barrier<1 + I, 32 * H>() : void()), ...);
  }(std::make_integer_sequence<int, Groups>{});
}

/// Every (row, slot) place of a down item's RW rows missing until its unit writes it (a warp's lanes).
template <int RW, int R>
ORDO_DEVICE ORDO_FORCEINLINE void set_partials_missing(float (*part)[R][slots_per_row], int lane) {
  for (int v = lane; v < RW * R * slots_per_row; v += 32) (&part[0][0][0])[v] = missing_partial();
}
/// A down item's rows o0 .. o0 + RW - 1 (those inside n_embd) from their slots' partials, in
/// weighted_sum order (Kernel::write_out; a warp's lanes).
template <class Kernel, int RW, int R>
ORDO_DEVICE ORDO_FORCEINLINE void write_item_rows(const problem& p, float (*part)[R][slots_per_row], int o0, int lane) {
  for (int v = lane; v < RW * p.rows; v += 32) {
    const int rr = v / p.rows, i = v % p.rows;
    if (o0 + rr < p.n_embd) Kernel::write_out(p, i, o0 + rr, part[rr][i]);
  }
}

/// The down pass's partial of row rr for unit u's pair j into its (row, slot) place.
template <int R>
ORDO_DEVICE ORDO_FORCEINLINE void store_partial(float (*part)[R][slots_per_row], const unit_list<R>& ul, const problem& p, int u, int j,
                                                int rr, float v) {
  const int code = unit_pair(ul, p, u, j);
  part[rr][code / slots_per_row][code % slots_per_row] = v;
}

/// A pass's activation rows staged in shared memory (gate_up's x, int8-block formats), already in
/// the decoder's arrangement: pair jj reads staged row row_of[jj].
template <int R>
struct staged_rows {
  static constexpr bool arranged = true;
  qmv::staged_q8_32_codes codes;
  const float* d;
  int nb;
  int row_of[R];
  ORDO_DEVICE ORDO_FORCEINLINE void load(int jj, int b, std::uint32_t (&xq)[8], float& xd) const {
    const int at = row_of[jj] * nb + b;
    codes.load(at, xq);
    xd = d[at];
  }
};

/// A pass's activation rows in global memory, in format A's blocks (down's mid_act; gate_up's x for
/// chunk formats): pair jj's row starts at row[jj] (4-byte aligned, written before this launch).
template <class A, int R>
struct global_rows {
  static constexpr bool arranged = false;  // the codes as stored: window_terms arranges them
  const std::byte* row[R];
  ORDO_DEVICE ORDO_FORCEINLINE void load(int jj, int b, std::uint32_t (&xq)[8], float& xd) const {
    static_assert(std::is_same_v<A, quant::q8_32>, "int8-block formats dot against q8_32");
    const auto* w = reinterpret_cast<const std::uint32_t*>(row[jj] + std::size_t(b) * qmv::q8_32_block_bytes);
    xd = __uint_as_float(__ldg(w));
#pragma unroll
    for (int q = 0; q < 8; ++q) xq[q] = __ldg(w + 1 + q);
  }
  ORDO_DEVICE ORDO_FORCEINLINE const typename A::block& block(int jj, int b) const {
    return reinterpret_cast<const typename A::block*>(row[jj])[b];
  }
};

/// Runs f on acc's first N values as an array of N (a pass of fewer pairs than the tier uses only
/// those): acc itself where N == M, else a copy, put back after (static indices: register moves).
template <int N, int M, class Fn>
ORDO_DEVICE ORDO_FORCEINLINE void on_prefix(float (&acc)[M], Fn&& f) {
  static_assert(N <= M);
  if constexpr (N == M) {
    f(acc);
  } else {
    float a[N];
#pragma unroll
    for (int v = 0; v < N; ++v) a[v] = acc[v];
    f(a);
#pragma unroll
    for (int v = 0; v < N; ++v) acc[v] = a[v];
  }
}

/// The slot window of RW weight rows of format F in `stage` (row rr at stage + rr · stage_row, its
/// first block at offset[rr]; wb <= SB blocks from row block b0) against the pass's `live` pairs:
/// each block's one-row term added to acc[rr · R + jj] by the block's ls32 owner lane, the slot's
/// 32-block windows in ascending order. Granular: every offset is 0 (the ring's bulk copies land
/// whole 16-byte granules at the slot's start), so a lane's block sits at the same place in every
/// row and the address work of one row serves all. DecoderRows: the rows that pick an int8-block
/// format's decoder (config::decoder_rows; every decoder of F takes x in int8_decoder<F>'s
/// arrangement, the one it is staged in).
template <class F, int RW, int R, int SB, bool Granular, bool RowsOuter, int ChunkStepUnroll, int ChunkRows, int DecoderRows,
          bool FusedSigns, class Src, class Tables>
ORDO_DEVICE ORDO_FORCEINLINE void window_terms(const std::byte* stage, int stage_row, const int (&offset)[RW], int b0, int wb,
                                               int lane, int live, const Src& src, float (&acc)[RW * R], const Tables& tables) {
  if constexpr (int8_blocks<F>) {
    (void)tables;  // int8-block decoders read no tables
    // A lane decodes its block of each row once and dots it against every pair's activation
    // words in the decoder's arrangement (F::dot_scale, statement for statement; a lane past the
    // row's last block adds nothing).
    using D = qmv::int8_decoder_at<F, DecoderRows>;
    static_assert(std::is_base_of_v<qmv::int8_decoder<F>, D> || std::is_same_v<qmv::int8_decoder<F>, D>,
                  "D takes x as int8_decoder<F> arranges it (how it is staged)");
    // the slot's windows unrolled at tiers 1-2 only (above, the copies' registers cost an SM a
    // CTA) and in the Granular statement only: the other one serves the cp.async fallback, whose
    // windows are not in granules (test shapes, never DS4's), and as a loop it is 5-6 KB less code
    constexpr int unrolled_subs = R <= 2 && Granular ? SB / window_blocks : 1;
#pragma unroll unrolled_subs
    for (int sub = 0; sub < SB / window_blocks; ++sub) {
      if (sub * window_blocks >= wb) break;  // uniform: the row ended in an earlier window of the slot
      const bool block_live = sub * window_blocks + lane < wb;
      const int b = b0 + sub * window_blocks + (block_live ? lane : 0);
      auto decode = [&](int rr, float& wd, std::uint32_t (&wq)[D::words]) {
        D::decode(stage + rr * stage_row, (Granular ? 0 : offset[rr]) + (sub * window_blocks + lane) * D::block_bytes, wd, wq);
      };
      auto add_term = [&](int rr, int jj, float wd, const std::uint32_t (&wq)[D::words], float xd, const std::uint32_t (&xq)[8]) {
        const std::int32_t isum = D::dot(wq, xq);
        const float term = (wd * xd) * static_cast<float>(isum);
        if (block_live) acc[rr * R + jj] = acc[rr * R + jj] + term;
      };
      if constexpr (RowsOuter) {
        // every live pair's activation words first, then one row's codes at a time
        std::uint32_t xq[R][8];
        float xd[R];
#pragma unroll
        for (int jj = 0; jj < R; ++jj) {
          if (jj < live) {
            src.load(jj, b, xq[jj], xd[jj]);
            if constexpr (!Src::arranged) D::arrange_x(xq[jj]);
          }
        }
#pragma unroll
        for (int rr = 0; rr < RW; ++rr) {
          std::uint32_t wq[D::words];
          float wd;
          decode(rr, wd, wq);
#pragma unroll
          for (int jj = 0; jj < R; ++jj)
            if (jj < live) add_term(rr, jj, wd, wq, xd[jj], xq[jj]);
        }
      } else {
        // every row's codes first, then one pair's activation words at a time
        std::uint32_t wq[RW][D::words];
        float wd[RW];
#pragma unroll
        for (int rr = 0; rr < RW; ++rr) decode(rr, wd[rr], wq[rr]);
#pragma unroll
        for (int jj = 0; jj < R; ++jj) {
          if (jj < live) {
            std::uint32_t xq[8];
            float xd;
            src.load(jj, b, xq, xd);
            if constexpr (!Src::arranged) D::arrange_x(xq);
#pragma unroll
            for (int rr = 0; rr < RW; ++rr) add_term(rr, jj, wd[rr], wq[rr], xd, xq);
          }
        }
      }
    }
  } else {
    // qmv's chunk-cooperative window statement, over the staged window, ChunkRows rows at a time.
    static_assert(RW % ChunkRows == 0, "the window's rows split into whole groups of ChunkRows");
#pragma unroll
    for (int r0 = 0; r0 < RW; r0 += ChunkRows) {
      const typename F::block* rows[ChunkRows];
      float a[ChunkRows * R];
#pragma unroll
      for (int n = 0; n < ChunkRows; ++n) {
        rows[n] = reinterpret_cast<const typename F::block*>(stage + (r0 + n) * stage_row + (Granular ? 0 : offset[r0 + n]));
#pragma unroll
        for (int jj = 0; jj < R; ++jj) a[n * R + jj] = acc[(r0 + n) * R + jj];
      }
      qmv::int_chunk_cooperative::accumulate_window_rows<F, ChunkRows, R, ChunkStepUnroll, FusedSigns>(
          rows, wb, live, [&](int jj, int jb) -> const auto& { return src.block(jj, b0 + jb); }, lane, a, tables);
#pragma unroll
      for (int k = 0; k < ChunkRows * R; ++k) acc[r0 * R + k] = a[k];
    }
  }
}

/// A pass's sums after its windows: the halving butterfly over a[rr · W + jj] (window row rr, pair
/// jj), then on the first lane of each value's lanes place(rr, jj, sum).
template <int RW, int W, class Place>
ORDO_DEVICE ORDO_FORCEINLINE void combine_pass(float (&a)[RW * W], int lane, const Place& place) {
  constexpr int C = RW * W, hs = qmv::halving_steps<C>;
  qmv::halving_butterfly<C>(a, lane);
  const bool writer = (lane & ((1 << (5 - hs)) - 1)) == 0;
#pragma unroll
  for (int v = 0; v < qmv::halved_count<C>; ++v) {
    const int idx = qmv::halved_value_index<C>(lane, v);
    if (writer) place(idx / W, idx % W, a[v]);
  }
}
#endif

/// gate_up pass 0, streamed. Work item = (pass, group of cfg::gate_up_out_rows output rows): items in
/// pass order, then group. Its window rows: the group's gate rows, then its up rows.
template <class Kernel>
__global__ void __launch_bounds__(config_of<Kernel>::warps * 32,
                                    config_of<Kernel>::min_ctas)
    gate_up_kernel(problem p) {
#if defined(ORDO_DEVICE_PASS)
  using L = typename Kernel::layout;
  using GU = typename L::gate_up;
  using S = typename L::shared;
  using cfg = config_of<Kernel>;
  constexpr int R = built_rows<Kernel>, H = cfg::gate_up_out_rows, RW = 2 * H, SRB = row_stage_bytes_of_both<GU, S>;
  constexpr int PR = cfg::routed_pairs, warps = cfg::warps, stages = cfg::stages;
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const cta_memory<R, warps, stages, stages * RW * SRB> mem(ordo_moe_streaming_smem);
  const auto& ul = mem.ul;
  const auto& table = mem.table;
  const qmv::window_ring<stages, RW, SRB> ring{mem.ring(warp), mem.ring_bars(warp), cfg::bulk && windows_in_granules<L>(p)};
  ring.init(lane);
  const int nb_g = p.n_embd / GU::dot_elems, nb_s = p.n_embd / S::dot_elems;
  // x of the int8-block formats staged as q8_32 in their decoders' arrangements (the routed rows
  // first; the shared rows apart unless they are the same rows in the same arrangement)
  std::byte* acts = mem.after_rings;
  const bool shared_apart = stage_shared_apart<GU, S>(p);
  std::byte* acts_shared = int8_blocks<GU> ? acts + staged_act_bytes(R, nb_g) : acts;
  auto* xr_qs = reinterpret_cast<uint4*>(acts);
  auto* xr_d = reinterpret_cast<float*>(acts + std::size_t(R) * nb_g * 32);
  auto* xs_qs = shared_apart ? reinterpret_cast<uint4*>(acts_shared) : xr_qs;
  auto* xs_d = shared_apart ? reinterpret_cast<float*>(acts_shared + std::size_t(R) * nb_s * 32) : xr_d;

  // Items pass-major, the shared expert's pass (groups items) first, dealt to the warps a round at
  // a time (item_deal.hpp). A warp walks its items window by window; a cursor is where it is (a
  // division per item, none per window: the walk only moves forward).
  const int groups = (p.n_ff + H - 1) / H;
  int items = groups;  // the shared expert's items (pass 0, the first `groups`) until the pass table is built
  const int warp_id = int(blockIdx.x) * warps + warp, n_warps = int(gridDim.x) * warps;
  struct cursor {
    int round, it, k, g, u, j0, j, slot;  // deal round, item, its pass and row group, the pass's unit and first pair; window; ring slot
    unsigned phase;                // the parity of the ring's turn at slot
    int windows, nb, block_bytes, wblk;  // the unit's slot windows a row, blocks a row, bytes a block, blocks a slot window
    const std::byte* row[RW];      // nullptr: a row past n_ff
  };
  auto settle = [&](cursor& c) {  // the unit, rows and window shape of item c.it (c.k, c.g set; pass 0: no table read)
    while (c.k > 0 && c.u + 1 < table.units && table.first[c.u + 1] <= c.k) ++c.u;
    c.j0 = c.k > 0 ? (c.k - table.first[c.u]) * pass_pairs<R, PR>(c.u) : 0;
    const std::byte *gate, *up;
    std::size_t gate_row, up_row;
    if (c.u == 0) {
      gate = p.shared_gate.data, up = p.shared_up.data, gate_row = p.shared_gate.row_bytes, up_row = p.shared_up.row_bytes;
      c.nb = nb_s, c.windows = windows_of<S, SRB>(nb_s), c.block_bytes = S::block_bytes, c.wblk = slot_blocks<S, SRB>;
    } else {
      const std::size_t e = std::size_t(ul.expert[c.u - 1]);
      gate = p.gate.data + e * p.gate.expert_bytes, up = p.up.data + e * p.up.expert_bytes;
      gate_row = p.gate.row_bytes, up_row = p.up.row_bytes;
      c.nb = nb_g, c.windows = windows_of<GU, SRB>(nb_g), c.block_bytes = GU::block_bytes, c.wblk = slot_blocks<GU, SRB>;
    }
#pragma unroll
    for (int h = 0; h < H; ++h) {
      const int r = c.g * H + h;
      c.row[h] = r < p.n_ff ? gate + std::size_t(r) * gate_row : nullptr;
      c.row[H + h] = r < p.n_ff ? up + std::size_t(r) * up_row : nullptr;
    }
  };
  auto take = [&](cursor& c) {  // the item of round c.round, if any
    c.it = dealt_item(c.round, warp_id, n_warps, cfg::boustrophedon);
    if (c.it < items) c.k = c.it / groups, c.g = c.it % groups, settle(c);
  };
  auto start = [&](cursor& c) {
    c.round = 0, c.j = 0, c.slot = 0, c.phase = 0, c.u = 0, c.windows = 1;  // windows: a warp with no item still advances
    take(c);
  };
  auto advance = [&](cursor& c) {
    if (++c.slot == stages) c.slot = 0, c.phase ^= 1u;
    if (++c.j < c.windows) return;
    c.j = 0;
    ++c.round;
    take(c);
  };
  auto window_start = [](const cursor& c, int rr) { return c.row[rr] + std::size_t(c.j) * c.wblk * c.block_bytes; };
  auto window_count = [](const cursor& c) { return slot_window_count(c.nb, c.j, c.wblk); };
  auto issue = [&](const cursor& c) {
    const std::byte* start[RW];
    int bytes[RW];
#pragma unroll
    for (int rr = 0; rr < RW; ++rr) start[rr] = c.row[rr] ? window_start(c, rr) : nullptr, bytes[rr] = window_count(c) * c.block_bytes;
    ring.request(c.slot, c.it < items, start, bytes, lane);
  };

  // Launched as a dependent (qmv/dependent_launch.hpp): the next pass may launch now. The first
  // windows are requested before the activations are staged, and those of a shared-expert item
  // (whose weights the kernel chain never writes) before waiting for the kernel before this one;
  // the routing and x come after the wait. Early requests stay inside the warp's first item, so
  // no item is settled before the pass table exists.
  qmv::dependent_launch::allow_dependents();
  cursor in;                              // the next window to request
  issued_windows<cursor, stages> issued;  // requested, not yet computed
  start(in);  // takes a shared item or none (items = groups yet)
  int early = 0;
#pragma unroll
  for (int t = 0; t < stages - 1; ++t)
    if (early == t && in.it < items && in.j + 1 < in.windows) issue(in), issued.w[t] = in, advance(in), ++early;
  qmv::dependent_launch::wait_for_predecessor();
  mem.template build<PR>(p);
  items = table.total() * groups;
  if (early == 0) start(in);  // the warp's first item, now that every item is known
#pragma unroll
  for (int t = 0; t < stages - 1; ++t)
    if (t >= early) issue(in), issued.w[t] = in, advance(in);
  if constexpr (int8_blocks<GU>)
    qmv::stage_q8_32_rows<qmv::int8_decoder<GU>>(p.x_routed, p.x_routed_row_bytes, p.rows, p.rows, nb_g, xr_qs, xr_d);
  if constexpr (int8_blocks<S>)
    if (shared_apart) qmv::stage_q8_32_rows<qmv::int8_decoder<S>>(p.x_shared, p.x_shared_row_bytes, p.rows, p.rows, nb_s, xs_qs, xs_d);
  // the routed format's decoder tables, copied where config::iq2_tables asks (after the staged x)
  using tables_t = window_tables<GU, cfg::iq2_tables>;
  tables_t tables{};
  if constexpr (qmv::is_iq2_copied<tables_t>)
    tables = qmv::fill_iq2_tables<tables_t::sign_table>(reinterpret_cast<std::uint64_t*>(acts + gate_up_act_bytes<L, R>(p)),
                                                        int(threadIdx.x), warps * 32);
  // the routed x rows copied where config::x_copy_budget asks (after the tables)
  const bool x_copied = cfg::x_copy_budget > 0 && copy_x_routed<GU>(p, cfg::x_copy_budget);  // no code where no budget
  std::byte* x_copy = acts + gate_up_act_bytes<L, R>(p) + tables_bytes<tables_t>;
  if (x_copied)
    qmv::copy_granules_cta(reinterpret_cast<uint4*>(x_copy), reinterpret_cast<const uint4*>(p.x_routed),
                           x_routed_copy_bytes(p));
  const std::byte* x_routed = x_copied ? x_copy : p.x_routed;
  __syncthreads();

  // A pass of W pairs (the shared expert's: R; a routed unit's: PR) uses acc's first RW · W
  // values: pair jj's sum of window row rr at rr · W + jj.
  float acc[RW * R];
  int row_of[R];  // the x row of each pair of the item's pass
  int live = 0;
  while (issued.oldest().it < items) {
    __syncwarp();  // every lane is done with the stage the next request overwrites
    issue(in);
    const cursor& cur = issued.oldest();
    ring.wait(cur.slot, cur.phase);
    if (cur.j == 0) {
      const int left = unit_pair_count(ul, p, cur.u) - cur.j0, width = pass_pairs<R, PR>(cur.u);
      live = left < width ? left : width;
      auto fill_rows = [&](auto pairs) {  // a routed pass's PR pairs only, as down's slots
#pragma unroll
        for (int jj = 0; jj < decltype(pairs)::value; ++jj)
          row_of[jj] = jj < live ? unit_pair(ul, p, cur.u, cur.j0 + jj) / slots_per_row : 0;
      };
      with_pass_width<R, PR>(cur.u, fill_rows);
#pragma unroll
      for (int v = 0; v < RW * R; ++v) acc[v] = 0.0f;
    }
    const std::byte* stage = ring.slot(cur.slot);
    int offset[RW];
#pragma unroll
    for (int rr = 0; rr < RW; ++rr) offset[rr] = int(reinterpret_cast<std::uintptr_t>(window_start(cur, rr)) & 15);
    // the pass's x rows: staged (int8-block formats) or in global memory (chunk formats)
    auto terms = [&](auto width, auto granular, auto format, const std::byte* x, std::size_t x_row_bytes, const uint4* qs,
                     const float* d, int nb, const auto& decoder_tables) {
      constexpr int W = decltype(width)::value;
      using F = decltype(format);
      constexpr bool G = decltype(granular)::value;
      on_prefix<RW * W>(acc, [&](float (&a)[RW * W]) {
        if constexpr (int8_blocks<F>) {
          staged_rows<W> src{{qs, p.rows, nb}, d, nb, {}};  // p.rows rows staged
#pragma unroll
          for (int jj = 0; jj < W; ++jj) src.row_of[jj] = row_of[jj];
          window_terms<F, RW, W, slot_blocks<F, SRB>, G, cfg::template rows_outer<F, RW, W>, cfg::chunk_step_unroll,
                       cfg::template chunk_rows<RW, W>, cfg::template decoder_rows<W>, cfg::fused_sign_dot>(stage, SRB, offset, cur.j * cur.wblk, window_count(cur), lane, live, src, a, decoder_tables);
        } else {
          global_rows<typename F::activation, W> src;
#pragma unroll
          for (int jj = 0; jj < W; ++jj) src.row[jj] = x + std::size_t(row_of[jj]) * x_row_bytes;
          window_terms<F, RW, W, slot_blocks<F, SRB>, G, cfg::template rows_outer<F, RW, W>, cfg::chunk_step_unroll,
                       cfg::template chunk_rows<RW, W>, cfg::template decoder_rows<W>, cfg::fused_sign_dot>(stage, SRB, offset, cur.j * cur.wblk, window_count(cur), lane, live, src, a, decoder_tables);
        }
      });
    };
    auto unit_terms = [&](auto granular) {
      if (cur.u == 0)
        terms(std::integral_constant<int, R>{}, granular, S{}, p.x_shared, p.x_shared_row_bytes, xs_qs, xs_d, nb_s, qmv::format_tables{});
      else terms(std::integral_constant<int, PR>{}, granular, GU{}, x_routed, p.x_routed_row_bytes, xr_qs, xr_d, nb_g, tables);
    };
    if (cfg::granular && ring.bulk) unit_terms(std::bool_constant<cfg::granular>{});
    else unit_terms(std::false_type{});

    if (cur.j == cur.windows - 1) {
      // a[h·W + jj] is pair jj's gate sum of the group's row h, a[(H + h)·W + jj] its up sum.
      // The butterfly's first step splits them (gate values to lanes with bit 4 clear, up values to
      // the partner lane ^ 16 at the same place), so one xor shuffle brings each u beside its g.
      auto finish = [&](auto width) {
        constexpr int W = decltype(width)::value, C = RW * W, hs = qmv::halving_steps<C>;
        static_assert(hs >= 1, "gate and up values split at the first butterfly step");
        on_prefix<C>(acc, [&](float (&a)[C]) {
          qmv::halving_butterfly<C>(a, lane);
#pragma unroll
          for (int v = 0; v < qmv::halved_count<C>; ++v) {
            const float up = gpu::shfl_xor(a[v], 16);
            const int idx = qmv::halved_value_index<C>(lane, v), h = idx / W, jj = idx % W, r = cur.g * H + h;
            const bool writer = (lane & 16) == 0 && (lane & ((1 << (5 - hs)) - 1)) == 0;
            if (writer && jj < live && r < p.n_ff) Kernel::write_mid(p, unit_pair(ul, p, cur.u, cur.j0 + jj), r, a[v], up);
          }
        });
      };
      with_pass_width<R, PR>(cur.u, finish);
    }
    issued.push_pop(in);
    advance(in);
  }
  ring.drain();
#else
  (void)p;
#endif
}

/// down, streamed. Work item = cfg::down_rows output rows: every pass of every unit.
template <class Kernel>
__global__ void __launch_bounds__(config_of<Kernel>::down_warps * 32,
                                    config_of<Kernel>::down_min_ctas)
    down_kernel(problem p) {
#if defined(ORDO_DEVICE_PASS)
  using L = typename Kernel::layout;
  using D = typename L::down;
  using S = typename L::shared;
  using cfg = config_of<Kernel>;
  constexpr int R = built_rows<Kernel>, RW = cfg::down_rows, SRB = cfg::down_stage_row_bytes;
  constexpr int PR = cfg::routed_pairs, warps = cfg::down_warps, stages = cfg::down_stages;
  constexpr bool dual = cfg::dual_units;
  constexpr int RS = cfg::down_slot_rows;  // a slot's rows: RW, or RW of each of two routed passes (dual)
  constexpr int H = cfg::down_split;       // warps an item (split: every H-th pass each)
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const int pair = warp / H, half = warp % H;  // the item's warps, and which of them this is
  split_walk<H, (cfg::down_split_shared_weight >= 0)> walk{half};
  const cta_memory<R, warps, stages, stages * RS * SRB> mem(ordo_moe_streaming_smem);
  const auto& ul = mem.ul;
  const auto& table = mem.table;
  const qmv::window_ring<stages, RS, SRB> ring{mem.ring(warp), mem.ring_bars(warp), cfg::bulk && windows_in_granules<L>(p)};
  ring.init(lane);
  // this warp's (split: its item's warps') partials: [RW][R][slots_per_row]; then, where staged or
  // copied, the pairs' mid_act rows
  auto* part = reinterpret_cast<float(*)[R][slots_per_row]>(mem.after_rings) + std::size_t(pair) * RW;
  std::byte* mid = mem.after_rings + down_partial_bytes<R, warps / H, RW>;
  const bool staged = stage_mid_act<D, S, R>(p, cfg::mid_act_budget);
  const bool copied = copy_mid_act<D>(p, cfg::mid_act_budget);  // the other case: never both
  const int nb_mid = p.n_ff / D::dot_elems;
  auto* mid_qs = reinterpret_cast<uint4*>(mid);
  auto* mid_d = reinterpret_cast<float*>(mid + std::size_t(p.rows) * (p.n_used + 1) * nb_mid * 32);
  const int nb_d = p.n_ff / D::dot_elems, nb_s = p.n_ff / S::dot_elems;

  const int groups = (p.n_embd + RW - 1) / RW;
  int passes = 1;  // the shared pass until the pass table is built
  const int first = int(blockIdx.x) * (warps / H) + pair, stride = int(gridDim.x) * (warps / H);

  // A warp walks its items (row groups) first, first + stride, ...; in each, every pass (the
  // shared one first; split: the passes of split_walk), window by window. A cursor is where it is.
  struct cursor_fields {
    int g, k, u, j0, j, slot;  // row group, pass, its unit and first pair, window, ring slot
    unsigned phase;            // the parity of the ring's turn at slot
    int windows, nb, block_bytes, wblk;  // the unit's slot windows a row, blocks a row, bytes a block, blocks a slot window
    const std::byte* base;     // the unit's down matrix
    std::size_t row_bytes;
  };
  struct cursor : cursor_fields, second_pass_fields<dual> {};
  // whether window c has a second pass; the pass it ends its item's walk at
  auto has_second = [](const cursor& c) {
    if constexpr (dual) return c.k2 > 0;
    else return false;
  };
  auto last_pass_of = [](const cursor& c) {
    if constexpr (dual) return c.k2 > 0 ? c.k2 : c.k;
    else return c.k;
  };
  auto settle = [&](cursor& c) {  // the unit and window shape of pass c.k (pass 0: no table read)
    while (c.k > 0 && c.u + 1 < table.units && table.first[c.u + 1] <= c.k) ++c.u;
    c.j0 = c.k > 0 ? (c.k - table.first[c.u]) * pass_pairs<R, PR>(c.u) : 0;
    if (c.u == 0) {
      c.base = p.shared_down.data, c.row_bytes = p.shared_down.row_bytes;
      c.nb = nb_s, c.windows = windows_of<S, SRB>(nb_s), c.block_bytes = S::block_bytes, c.wblk = slot_blocks<S, SRB>;
    } else {
      c.base = p.down.data + std::size_t(ul.expert[c.u - 1]) * p.down.expert_bytes, c.row_bytes = p.down.row_bytes;
      c.nb = nb_d, c.windows = windows_of<D, SRB>(nb_d), c.block_bytes = D::block_bytes, c.wblk = slot_blocks<D, SRB>;
    }
    if constexpr (dual) {  // a routed pass of one window takes the next pass beside it, if any
      c.k2 = c.u > 0 && c.windows == 1 && c.k + 1 < passes ? c.k + 1 : 0;
      if (c.k2 > 0) {
        c.u2 = c.u;
        while (c.u2 + 1 < table.units && table.first[c.u2 + 1] <= c.k2) ++c.u2;
        c.j02 = (c.k2 - table.first[c.u2]) * PR;
        c.base2 = p.down.data + std::size_t(ul.expert[c.u2 - 1]) * p.down.expert_bytes;
      }
    }
  };
  auto start = [&](cursor& c) {
    c.g = first, c.k = half, c.u = 0, c.j = 0, c.slot = 0, c.phase = 0;
    if constexpr (dual) c.k2 = 0;
    settle(c);
  };
  auto advance = [&](cursor& c) {
    if (++c.slot == stages) c.slot = 0, c.phase ^= 1u;
    if (++c.j < c.windows) return;
    c.j = 0;
    if constexpr (dual)
      if (c.k2 > 0) c.k = c.k2;  // the window took both passes
    if constexpr (H == 1) {
      if (++c.k == passes) c.k = 0, c.u = 0, c.g += stride;
    } else {
      c.k = walk.next(c.k);
      if (c.k >= walk.end(passes)) c.k = half, c.u = 0, c.g += stride;
    }
    settle(c);
  };
  // the window of row rr of the slot: the pass's row rr (rr < RW), or (dual) the second pass's row rr - RW
  // (one pass: the expression as it was, so its machine code is what the device gated)
  auto window_start = [](const cursor& c, int rr) {
    if constexpr (dual) {
      const std::byte* base = rr >= RW ? c.base2 : c.base;
      return base + std::size_t(c.g * RW + rr % RW) * c.row_bytes + std::size_t(c.j) * c.wblk * c.block_bytes;
    } else {
      return c.base + std::size_t(c.g * RW + rr) * c.row_bytes + std::size_t(c.j) * c.wblk * c.block_bytes;
    }
  };
  auto window_count = [](const cursor& c) { return slot_window_count(c.nb, c.j, c.wblk); };
  auto issue = [&](const cursor& c) {
    const std::byte* start[RS];
    int bytes[RS];
#pragma unroll
    for (int rr = 0; rr < RS; ++rr) {
      bool present;  // a row inside n_embd, of a pass the window has
      if constexpr (dual) present = c.g * RW + rr % RW < p.n_embd && (rr < RW || has_second(c));
      else present = c.g * RW + rr < p.n_embd;
      start[rr] = present ? window_start(c, rr) : nullptr, bytes[rr] = window_count(c) * c.block_bytes;
    }
    ring.request(c.slot, c.g < groups, start, bytes, lane);
  };
  // As gate_up: every item's first pass is the shared expert's, whose windows are requested before
  // the wait (inside that pass: no pass is settled before the table exists); the routing and
  // mid_act come after it. (Split: the other warp's first pass is a routed one, so it starts
  // once the table is built.)
  qmv::dependent_launch::allow_dependents();
  cursor in;                              // the next window to request
  issued_windows<cursor, stages> issued;  // requested, not yet computed
  if (half == 0) start(in);
  int early = 0;
#pragma unroll
  for (int t = 0; t < stages - 1; ++t)
    if (early == t && half == 0 && in.j + 1 < in.windows) issue(in), issued.w[t] = in, advance(in), ++early;
  qmv::dependent_launch::wait_for_predecessor();
  mem.template build<PR>(p);
  passes = table.total();  // >= 2: the shared pass and a routed one (rows, n_used >= 1), so a split item's warps each have one
  if constexpr (H > 1 && cfg::down_split_shared_weight >= 0) walk.last = walk.last_of(passes, cfg::down_split_shared_weight);
  if (half > 0) start(in);
#pragma unroll
  for (int t = 0; t < stages - 1; ++t)
    if (t >= early) issue(in), issued.w[t] = in, advance(in);
  if constexpr (int8_blocks<D> && int8_blocks<S>) {
    if (staged) {
      const int slots = p.n_used + 1;
      qmv::stage_q8_32_rows<qmv::int8_decoder<D>, qmv::int8_decoder<S>>(
          p.mid_act, p.mid_act_row_bytes, p.rows * slots, p.rows * slots, nb_mid, mid_qs, mid_d,
          [&](int s) { return s % slots == p.n_used; });
      __syncthreads();
    }
  } else if (copied) {
    qmv::copy_granules_cta(reinterpret_cast<uint4*>(mid), reinterpret_cast<const uint4*>(p.mid_act), mid_act_copy_bytes(p));
    __syncthreads();
  }
  if constexpr (H > 1) {  // split: every place missing until its unit writes it (then after each item)
    if (half == 0) set_partials_missing<RW>(part, lane);
    item_warps_barrier<H, warps / H>(pair);
  }

  // A pass of W pairs (the shared expert's: R; a routed unit's: PR) uses acc's first RW · W
  // values: pair jj's sum of window row rr at rr · W + jj.
  float acc[RW * R];
  int slot[R];  // the (row, slot) place of each pair of the pass
  int live = 0;
  float acc2[RW];  // dual: the second pass's sums (its one pair)
  int slot2 = 0;   // dual: its pair's place
  while (issued.oldest().g < groups) {
    __syncwarp();  // every lane is done with the stage the next request overwrites
    issue(in);
    const cursor& cur = issued.oldest();
    ring.wait(cur.slot, cur.phase);
    const int o0 = cur.g * RW;
    if (cur.j == 0) {
      const int left = unit_pair_count(ul, p, cur.u) - cur.j0, width = pass_pairs<R, PR>(cur.u);
      live = left < width ? left : width;
      // a routed pass reads only its PR pairs' places (filled apart: a loop to R tested and
      // branched per pair in every routed window, ~50 instructions of the q2 layout's ~880 at 8
      // rows, ncu session 22)
      auto fill_slots = [&](auto pairs) {
#pragma unroll
        for (int jj = 0; jj < decltype(pairs)::value; ++jj)
          slot[jj] = jj < live ? int(slot_index(p, unit_pair(ul, p, cur.u, cur.j0 + jj))) : 0;
      };
      with_pass_width<R, PR>(cur.u, fill_slots);
#pragma unroll
      for (int v = 0; v < RW * R; ++v) acc[v] = 0.0f;
      if constexpr (dual) {
        if (cur.k2 > 0) slot2 = int(slot_index(p, unit_pair(ul, p, cur.u2, cur.j02)));
#pragma unroll
        for (int v = 0; v < RW; ++v) acc2[v] = 0.0f;
      }
      // (here and at the item's end the one-warp walk writes set_partials_missing and
      // write_item_rows out: called, they changed ptxas's output at q2 1 and mxfp4 1-2 rows)
      if (H == 1 && cur.k == 0) {  // a new item: every slot's partial missing until its unit writes it
        for (int v = lane; v < RW * R * slots_per_row; v += 32) (&part[0][0][0])[v] = missing_partial();
        __syncwarp();
      }
    }
    const std::byte* stage = ring.slot(cur.slot);
    int offset[RW], offset2[RW];
#pragma unroll
    for (int rr = 0; rr < RW; ++rr) {
      offset[rr] = int(reinterpret_cast<std::uintptr_t>(window_start(cur, rr)) & 15);
      if constexpr (dual) offset2[rr] = int(reinterpret_cast<std::uintptr_t>(window_start(cur, RW + rr)) & 15);
    }
    // a pass's terms into acc's first RW · W values; `second` (dual): the window's second pass, its
    // rows after the first's, its one pair live, into acc2
    auto terms = [&](auto width, auto granular, auto format, bool second) {
      constexpr int W = decltype(width)::value;
      const std::byte* stg = second ? stage + RW * SRB : stage;
      const int(&off)[RW] = second ? offset2 : offset;
      const int* slots = second ? &slot2 : slot;
      const int lv = second ? 1 : live;
      constexpr qmv::format_tables tables{};  // down's formats read no copied tables
      using F = decltype(format);
      constexpr bool G = decltype(granular)::value;
      constexpr bool rows_outer = cfg::template rows_outer<F, RW, W>;
      constexpr int chunk_rows = cfg::template chunk_rows<RW, W>;
      auto body = [&](float (&a)[RW * W]) {
        if constexpr (int8_blocks<D> && int8_blocks<S>) {
          if (staged) {
            staged_rows<W> src{{mid_qs, p.rows * (p.n_used + 1), nb_mid}, mid_d, nb_mid, {}};
#pragma unroll
            for (int jj = 0; jj < W; ++jj) src.row_of[jj] = slots[jj];
            window_terms<F, RW, W, slot_blocks<F, SRB>, G, rows_outer, cfg::chunk_step_unroll, chunk_rows, cfg::template decoder_rows<W>, cfg::fused_sign_dot>(
                stg, SRB, off, cur.j * cur.wblk, window_count(cur), lane, lv, src, a, tables);
            return;
          }
        }
        // a chunk format's rows from the copy where there is one (int8-block readers load through
        // the read-only cache, global memory only)
        const std::byte* mid_rows = !int8_blocks<F> && copied ? mid : p.mid_act;
        global_rows<typename F::activation, W> src;
#pragma unroll
        for (int jj = 0; jj < W; ++jj) src.row[jj] = mid_rows + std::size_t(slots[jj]) * p.mid_act_row_bytes;
        window_terms<F, RW, W, slot_blocks<F, SRB>, G, rows_outer, cfg::chunk_step_unroll, chunk_rows, cfg::template decoder_rows<W>, cfg::fused_sign_dot>(
            stg, SRB, off, cur.j * cur.wblk, window_count(cur), lane, lv, src, a, tables);
      };
      if constexpr (dual && W == 1) {
        if (second) return on_prefix<RW>(acc2, body);
      }
      on_prefix<RW * W>(acc, body);
    };
    auto unit_terms = [&](auto granular) {
      if (cur.u == 0) {
        terms(std::integral_constant<int, R>{}, granular, S{}, false);
      } else {
        terms(std::integral_constant<int, PR>{}, granular, D{}, false);
        if constexpr (dual)
          if (cur.k2 > 0) terms(std::integral_constant<int, 1>{}, granular, D{}, true);
      }
    };
    if (cfg::granular && ring.bulk) unit_terms(std::bool_constant<cfg::granular>{});
    else unit_terms(std::false_type{});

    if (cur.j == cur.windows - 1) {
      if constexpr (dual) {
        auto place = [&](int rr, int jj, float v) {  // the shared pass's pair jj, as below
          if (jj < live && o0 + rr < p.n_embd) store_partial(part, ul, p, cur.u, cur.j0 + jj, rr, v);
        };
        if (cur.u == 0) {
          combine_pass<RW, R>(acc, lane, place);
        } else {
          // both passes' sums in one butterfly: a[rr · 2] the first pass's (its one pair), a[rr · 2 + 1] the second's
          float a[RW * 2];
#pragma unroll
          for (int rr = 0; rr < RW; ++rr) a[2 * rr] = acc[rr], a[2 * rr + 1] = acc2[rr];
          combine_pass<RW, 2>(a, lane, [&](int rr, int second, float v) {
            if (o0 + rr < p.n_embd && (second == 0 || cur.k2 > 0)) {
              const int code = second ? unit_pair(ul, p, cur.u2, cur.j02) : unit_pair(ul, p, cur.u, cur.j0);
              part[rr][code / slots_per_row][code % slots_per_row] = v;
            }
          });
        }
      } else if constexpr (PR == R) {
        // (written out: the same epilogue through combine_pass and a lambda took the mxfp4 layout's
        // tier-16 down from 128 to 152 registers, ptxas, and its step from 1020 to 1305 µs)
        constexpr int C = RW * R, hs = qmv::halving_steps<C>;
        qmv::halving_butterfly<C>(acc, lane);
        const bool writer = (lane & ((1 << (5 - hs)) - 1)) == 0;  // the first lane of each value's lanes
#pragma unroll
        for (int v = 0; v < qmv::halved_count<C>; ++v) {
          const int idx = qmv::halved_value_index<C>(lane, v), rr = idx / R, jj = idx % R;
          if (writer && jj < live && o0 + rr < p.n_embd) {
            const int code = unit_pair(ul, p, cur.u, cur.j0 + jj);
            part[rr][code / slots_per_row][code % slots_per_row] = acc[v];
          }
        }
      } else {
        // pair jj's sum of row rr into its (row, slot) place (written here, as before the two-pass
        // windows: defined ahead of these branches, it changed the one-pass kernels' machine code)
        auto place = [&](int rr, int jj, float v) {
          if (jj < live && o0 + rr < p.n_embd) store_partial(part, ul, p, cur.u, cur.j0 + jj, rr, v);
        };
        if (cur.u == 0) {
          combine_pass<RW, R>(acc, lane, place);
        } else {
          float a[RW * PR];
#pragma unroll
          for (int v = 0; v < RW * PR; ++v) a[v] = acc[v];
          combine_pass<RW, PR>(a, lane, place);
        }
      }
      if constexpr (H == 1) {
        if (last_pass_of(cur) == passes - 1) {  // the item's last pass: its rows' sums, in weighted_sum order
          __syncwarp();
          for (int v = lane; v < RW * p.rows; v += 32) {
            const int rr = v / p.rows, i = v % p.rows;
            if (o0 + rr < p.n_embd) Kernel::write_out(p, i, o0 + rr, part[rr][i]);
          }
        }
      } else if (walk.next(cur.k) >= walk.end(passes)) {  // this warp's last pass of the item
        item_warps_barrier<H, warps / H>(pair);  // the item's other warp has placed its partials too
        if (half == 0) {
          write_item_rows<Kernel, RW>(p, part, o0, lane);
          __syncwarp();
          set_partials_missing<RW>(part, lane);  // for the next item, before either warp places again
        }
        item_warps_barrier<H, warps / H>(pair);
      }
    }
    issued.push_pop(in);
    advance(in);
  }
  ring.drain();
#else
  (void)p;
#endif
}

/// Whether the streamed passes can read p: every weight tensor 16-byte aligned with rows (and
/// experts) at offsets its format's reader accepts (int8 decoders: decoder::row_bytes_ok; chunk
/// formats: 4-byte multiples), rows that fit the stage (down's slot rows of DownSRB bytes,
/// config::down_stage_row_bytes), activation and mid_act rows 4-byte aligned.
template <class L, int DownSRB = row_stage_bytes_of_both<typename L::down, typename L::shared>>
inline bool can_stream(const problem& p) {
  using GU = typename L::gate_up;
  using D = typename L::down;
  using S = typename L::shared;
  auto a16 = [](const std::byte* v) { return (reinterpret_cast<std::uintptr_t>(v) & 15) == 0; };
  auto a4 = [](const void* v, std::size_t stride) { return (reinterpret_cast<std::uintptr_t>(v) & 3) == 0 && (stride & 3) == 0; };
  auto stride_ok = [](auto format, std::size_t bytes) {
    using F = decltype(format);
    if constexpr (int8_blocks<F>) return qmv::int8_decoder<F>::row_bytes_ok(bytes);
    else return (bytes & 3) == 0;
  };
  auto routed = [&](const expert_tensor& t, auto format) {
    return a16(t.data) && stride_ok(format, t.row_bytes) && stride_ok(format, t.expert_bytes);
  };
  auto shared = [&](const matrix& m) { return a16(m.data) && stride_ok(S{}, m.row_bytes); };
  constexpr int gu_srb = row_stage_bytes_of_both<GU, S>, d_srb = DownSRB;
  return windows_of<GU, gu_srb>(p.n_embd / GU::dot_elems) > 0 && windows_of<S, gu_srb>(p.n_embd / S::dot_elems) > 0 &&
         windows_of<D, d_srb>(p.n_ff / D::dot_elems) > 0 && windows_of<S, d_srb>(p.n_ff / S::dot_elems) > 0 && routed(p.gate, GU{}) &&
         routed(p.up, GU{}) && routed(p.down, D{}) && shared(p.shared_gate) && shared(p.shared_up) && shared(p.shared_down) &&
         a4(p.x_routed, p.x_routed_row_bytes) && a4(p.x_shared, p.x_shared_row_bytes) && a4(p.mid_act, p.mid_act_row_bytes);
}

/// Launches streamed pass K (CTAs of `warps` warps) on a persistent grid, as a dependent of the
/// kernel before it (qmv/dependent_launch.hpp): a CTA per `warps` work items, at most as many CTAs
/// as the GPU holds at once (each warp then strides over the items). False: the shared memory does
/// not fit.
template <auto* K, int warps>
bool launch_persistent(const problem& p, long work_items, std::size_t smem, gpu::stream_t stream) {
  const int resident = gpu::resident_ctas<K>(warps * 32, smem);
  if (resident == 0) return false;
  const long needed = (work_items + warps - 1) / warps;
  const long grid = needed < resident ? needed : resident;
  if (grid <= 0) return true;
  qmv::dependent_launch::launch(K, unsigned(grid), unsigned(warps * 32), smem, stream, p);
  return true;
}

/// gate_up pass 0 streamed; false (nothing launched) where it cannot run p.
template <class Kernel>
bool launch_gate_up(const problem& p, gpu::stream_t stream) {
  using L = typename Kernel::layout;
  using cfg = config_of<Kernel>;
  if (!can_stream<L>(p)) return false;
  // work items: at most (1 + rows · n_used) passes (the shared one, and a routed unit per pair) × row groups
  const long items = (1 + long(p.rows) * p.n_used) * ((p.n_ff + cfg::gate_up_out_rows - 1) / cfg::gate_up_out_rows);
  return launch_persistent<&gate_up_kernel<Kernel>, cfg::warps>(
      p, items, gate_up_smem<L, built_rows<Kernel>, typename Kernel::policy>(p), stream);
}

/// down streamed; false (nothing launched) where it cannot run p.
template <class Kernel>
bool launch_down(const problem& p, gpu::stream_t stream) {
  using L = typename Kernel::layout;
  using cfg = config_of<Kernel>;
  if (!can_stream<L, cfg::down_stage_row_bytes>(p)) return false;
  return launch_persistent<&down_kernel<Kernel>, cfg::down_warps>(p, down_walks<cfg>(p),
                                                                  down_smem<L, built_rows<Kernel>, typename Kernel::policy>(p), stream);
}
#endif

}  // namespace ordo::ops::moe::streaming
