/// The moe kernel of spec (Layout, R, Order, Phase) under qmv's Policy (warps per CTA, the
/// shared-memory window per warp), for the generic GPU entry and CPU executor.
///
/// gate_up (GPU): two dependent passes. Pass 0: CTA = (unit, slice of output rows: warps ×
///   rows_per_warp, about one Q8_0 row's bytes per warp), units = every possible distinct expert
///   (rows · n_used) plus the shared expert; a CTA past the problem's units does nothing. For each
///   pass of ≤ R pairs, each output row's gate and up projections (one warp per weight row, qmv's
///   window staging or chunk-cooperative arrangement, and combine), then mid = SwiGLU·w. Pass 1:
///   a warp per (pair, chunk of mid_chunk<L> rows): the pair's chunk of mid quantized into the down
///   activation blocks. Each element's arithmetic is the one-CTA-per-chunk arrangement's; only who
///   computes it changed, so the bits did not.
/// down: work item / CTA rows = output rows of n_embd (one warp per row, as qmv), each visiting
///   every unit: a pair's partial lands in its (row, slot) place, and the row's sum runs last in
///   steps::weighted_sum order.
/// CPU: items (unit, chunk) for gate_up (projections and quantization), output rows for down; an
/// item visits the 32 logical lanes itself (lanes = 1) because a pass combines before the next
/// pass and the epilogue needs whole chunks.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ordo/ops/moe/body.hpp"
#include "ordo/ops/moe/quantize_warp.hpp"
#include "ordo/ops/quantize_rows/warp.hpp"
#include "ordo/ops/moe/streaming.hpp"
#include "ordo/ops/qmv/dependent_launch.hpp"
#include "ordo/ops/qmv/int_chunk_cooperative.hpp"
#include "ordo/order/combine.hpp"
#if defined(ORDO_GPU)
#include "ordo/ops/gpu_entry.hpp"
#endif

namespace ordo::ops::moe {

/// Dot blocks per shared-memory window of format F under Policy (qmv's rule).
template <quant::quant_format F, class Policy>
inline constexpr std::size_t stage_bytes = std::size_t(32 * ((Policy::window_bytes / (32 * qmv::dot_bytes<F>)) > 0
                                                                  ? (Policy::window_bytes / (32 * qmv::dot_bytes<F>))
                                                                  : 1)) *
                                           qmv::dot_bytes<F>;

template <class L, int R, class Order, phase P, class Policy, class Steps = steps>
struct kernel {
  using problem = moe::problem;
  using layout = L;
  using policy = Policy;
  static constexpr int tier = R;
  using GU = typename L::gate_up;
  using D = typename L::down;
  using S = typename L::shared;
  static constexpr int chunk = mid_chunk<L>;
  static constexpr bool can_run(const problem& p) { return fits<L, R>(p); }

  ORDO_HD static long units_max(const problem& p) { return long(p.rows) * p.n_used + 1; }
  ORDO_HD static long chunks(const problem& p) { return p.n_ff / chunk; }
  /// gate_up pass 1's items on the GPU: (pair slot, chunk) of every row's n_used + 1 slots.
  ORDO_HD static long quantize_items(const problem& p) { return long(p.rows) * (p.n_used + 1) * chunks(p); }

  // ---- CPU executor
  static constexpr int lanes = 1;
  struct lane_state {};
  static long work_items(const problem& p) { return P == phase::gate_up ? units_max(p) * chunks(p) : p.n_embd; }

  /// The pass's projections of weight row `wrow` (nb dot blocks) for `live` pairs, on the host:
  /// the 32 logical lanes one after another, then order::combine on host_lanes.
  template <class F, class Rows>
  static void project_host(const std::byte* wrow, int nb, int live, const Rows& rows, float (&res)[R]) {
    order::host_lanes v[R];
    for (int lane = 0; lane < order::lanes; ++lane) {
      float acc[R];
      for (int j = 0; j < R; ++j) acc[j] = 0.0f;
      Steps::template accumulate<F, Order, R>(wrow, 0, nb, nb, lane, live, rows, acc);
      for (int j = 0; j < live; ++j) v[j].v[lane] = acc[j];
    }
    for (int j = 0; j < live; ++j) res[j] = order::combine<Order>(v[j]);
  }

  template <class F, class A>
  static void gate_up_unit_host(const problem& p, const unit_list<R>& ul, int u, int c, const std::byte* gate,
                                std::size_t gate_row_bytes, const std::byte* up, std::size_t up_row_bytes) {
    const int nb = p.n_embd / F::dot_elems, n_pairs = unit_pair_count(ul, p, u);
    for (int j0 = 0; j0 < n_pairs; j0 += R) {
      const int live = n_pairs - j0 < R ? n_pairs - j0 : R;
      const auto rows = pass_x_rows<typename F::activation::block, R>(ul, p, u, j0, live);
      for (int r = c * chunk; r < (c + 1) * chunk; ++r) {
        float g[R], v[R];
        project_host<F>(gate + std::size_t(r) * gate_row_bytes, nb, live, rows, g);
        project_host<F>(up + std::size_t(r) * up_row_bytes, nb, live, rows, v);
        for (int j = 0; j < live; ++j) write_mid(p, unit_pair(ul, p, u, j0 + j), r, g[j], v[j]);
      }
    }
    for (int j = 0; j < n_pairs; ++j) quantize_chunk<A>(p, unit_pair(ul, p, u, j), c, 0, 1);
  }

  static void lane_phase(const problem& p, long item, int, lane_state&) {
    unit_list<R> ul;
    build_units<Steps, R>(p, ul);
    if constexpr (P == phase::gate_up) {
      const int u = int(item / chunks(p)), c = int(item % chunks(p));
      if (u > ul.n_units) return;
      if (u == 0)
        gate_up_unit_host<S, typename S::activation>(p, ul, 0, c, p.shared_gate.data, p.shared_gate.row_bytes,
                                                     p.shared_up.data, p.shared_up.row_bytes);
      else {
        const std::size_t e = std::size_t(ul.expert[u - 1]);
        gate_up_unit_host<GU, typename D::activation>(p, ul, u, c, p.gate.data + e * p.gate.expert_bytes, p.gate.row_bytes,
                                                      p.up.data + e * p.up.expert_bytes, p.up.row_bytes);
      }
    } else {
      const int o = int(item);
      float part[R][slots_per_row];
      for (int i = 0; i < p.rows; ++i)
        for (int k = 0; k <= p.n_used; ++k) part[i][k] = missing_partial();
      for (int u = 0; u <= ul.n_units; ++u) {
        const int n_pairs = unit_pair_count(ul, p, u);
        for (int j0 = 0; j0 < n_pairs; j0 += R) {
          const int live = n_pairs - j0 < R ? n_pairs - j0 : R;
          float res[R];
          if (u == 0) {
            project_host<S>(p.shared_down.data + std::size_t(o) * p.shared_down.row_bytes, p.n_ff / S::dot_elems, live,
                            pass_mid_rows<typename S::activation::block, R>(ul, p, u, j0, live), res);
          } else {
            const std::size_t e = std::size_t(ul.expert[u - 1]);
            project_host<D>(p.down.data + e * p.down.expert_bytes + std::size_t(o) * p.down.row_bytes, p.n_ff / D::dot_elems,
                            live, pass_mid_rows<typename D::activation::block, R>(ul, p, u, j0, live), res);
          }
          for (int j = 0; j < live; ++j) {
            const int code = unit_pair(ul, p, u, j0 + j);
            part[code / slots_per_row][code % slots_per_row] = res[j];
          }
        }
      }
      for (int i = 0; i < p.rows; ++i) write_out(p, i, o, part[i]);
    }
  }
  static void finish(const problem&, long, const lane_state (&)[lanes]) {}

  // ---- shared by both executors
  /// mid (and the probes) of pair `code` at gate/up output row r.
  ORDO_HD ORDO_FORCEINLINE static void write_mid(const problem& p, int code, int r, float g, float u) {
    const std::size_t at = slot_index(p, code) * p.mid_stride + std::size_t(r);
    p.mid[at] = swiglu_mid(g, u, pair_weight(p, code), p.clamp);
    if (p.gate_out) p.gate_out[at] = g;
    if (p.up_out) p.up_out[at] = u;
  }
  /// Quantizes blocks first, first + step, … of chunk c of pair `code`'s mid into mid_act.
  template <class A>
  ORDO_HD ORDO_FORCEINLINE static void quantize_chunk(const problem& p, int code, int c, int first, int step) {
    const std::size_t s = slot_index(p, code);
    auto* blocks = reinterpret_cast<typename A::block*>(p.mid_act + s * p.mid_act_row_bytes);
    for (int b = first; b < chunk / A::block_elems; b += step) {
      const int blk = c * (chunk / A::block_elems) + b;
      A::quantize(p.mid + s * p.mid_stride + std::size_t(blk) * A::block_elems, blocks[blk]);
    }
  }
  /// Row i's output at o from its slot partials, and the probe.
  ORDO_HD ORDO_FORCEINLINE static void write_out(const problem& p, int i, int o, const float* part) {
    p.out[std::size_t(i) * p.out_stride + std::size_t(o)] = Steps::weighted_sum(part, p.n_used);
    if (p.partials)
      for (int k = 0; k <= p.n_used; ++k)
        p.partials[(std::size_t(i) * std::size_t(p.n_used + 1) + std::size_t(k)) * p.partial_stride + std::size_t(o)] = part[k];
  }

  // ---- GPU entry
  static constexpr int warps = Policy::warps;
  static constexpr int threads = warps * 32;
  static constexpr std::size_t max2(std::size_t a, std::size_t b) { return a > b ? a : b; }
  static constexpr std::size_t round16(std::size_t a) { return (a + 15) / 16 * 16; }
  /// gate_up runs as two dependent passes (ops/gpu_entry.hpp; stream order is the barrier):
  /// pass 0 projects slices of a unit's output rows, pass 1 quantizes whole chunks of mid. One CTA
  /// per (unit, chunk) doing both left 56 CTAs for 132 SMs at one row (7 units × 8 chunks of 256),
  /// each walking 512 weight rows: the quantization needs a whole chunk, the projections do not.
  /// down: one pass.
  static constexpr int phases = P == phase::gate_up ? 2 : 1;
  /// Output rows per warp in a pass-0 slice of format F: about as many weight bytes per CTA for
  /// every format (one Q8_0 row per warp: IQ2_XXS 4 rows, MXFP4 2, Q8_0 1), so the shared
  /// expert's slices and the routed ones take about the same time.
  template <class F>
  static constexpr int rows_per_warp = (34 * F::dot_elems) / (32 * int(qmv::dot_bytes<F>)) > 1
                                           ? (34 * F::dot_elems) / (32 * int(qmv::dot_bytes<F>))
                                           : 1;
  template <class F>
  static constexpr int slice_rows = warps * rows_per_warp<F>;
  ORDO_HD static long slices(const problem& p, int rows) { return (long(p.n_ff) + rows - 1) / rows; }
  /// Pass 1's per-warp staging: the blocks of one chunk in activation A.
  template <class A>
  static constexpr std::size_t quantize_stage_bytes = std::size_t(chunk / A::block_elems) * sizeof(typename A::block);
  static constexpr std::size_t stage =
      round16(P == phase::gate_up ? max2(max2(stage_bytes<GU, Policy>, stage_bytes<S, Policy>),
                                         max2(quantize_stage_bytes<typename D::activation>,
                                              quantize_stage_bytes<typename S::activation>))
                                  : max2(stage_bytes<D, Policy>, stage_bytes<S, Policy>));
  static constexpr std::size_t units_bytes = round16(sizeof(unit_list<R>));
  static constexpr std::size_t part_bytes = P == phase::down ? std::size_t(warps) * R * slots_per_row * sizeof(float) : 0;
  static constexpr std::size_t shared_bytes = units_bytes + std::size_t(warps) * stage + part_bytes;
  /// gate_up pass 0: the shared expert's slices, then every possible routed unit's (a CTA past
  /// the problem's units leaves); pass 1: a warp per (pair, chunk). down: output rows, `warps` per CTA.
  static unsigned grid(const problem& p, int pass) {
    if constexpr (P == phase::gate_up)
      return unsigned(pass == 0 ? slices(p, slice_rows<S>) + (units_max(p) - 1) * slices(p, slice_rows<GU>)
                                : (quantize_items(p) + warps - 1) / warps);
    else
      return unsigned((p.n_embd + warps - 1) / warps);
  }

#if defined(ORDO_GPU)
  /// The streamed passes (streaming.hpp: the same bits) for layouts whose formats are all int8-block
  /// or chunk-cooperative (streaming::applies), in ls32, with the real steps (a mutation check's Steps runs the generic
  /// passes it changes); gate_up's quantize pass stays generic. False where they cannot run p.
  static bool try_specialized_launch([[maybe_unused]] const problem& p, [[maybe_unused]] gpu::stream_t stream) {
#if defined(ORDO_GPU_CUDA)
    if constexpr (streaming::applies<L, Order> && std::is_same_v<Steps, steps>) {
      if constexpr (P == phase::gate_up) {
        if (!streaming::launch_gate_up<kernel>(p, stream)) return false;
        // the quantize pass as a dependent too (it waits before it reads, run_phase): the three
        // launches of a step overlap each one's start with the tail of the one before
        if (const unsigned g = grid(p, 1); g > 0)
          qmv::dependent_launch::launch(device_phase_kernel<kernel, 1>, g, unsigned(threads), shared_bytes, stream, p);
        return true;
      } else {
        return streaming::launch_down<kernel>(p, stream);
      }
    }
#endif
    return false;
  }
#endif

  /// Whether every weight row and activation row the projections read is 4-byte aligned (the
  /// chunk-cooperative arrangement reads them with 32-bit loads): one answer per problem.
  ORDO_HD static bool coop_aligned(const problem& p) {
    auto a = [](std::uintptr_t v) { return (v & 3) == 0; };
    auto t = [&](const expert_tensor& x) { return a(std::uintptr_t(x.data)) && a(x.row_bytes) && a(x.expert_bytes); };
    auto m = [&](const matrix& x) { return a(std::uintptr_t(x.data)) && a(x.row_bytes); };
    return t(p.gate) && t(p.up) && t(p.down) && m(p.shared_gate) && m(p.shared_up) && m(p.shared_down) &&
           a(std::uintptr_t(p.x_routed)) && a(p.x_routed_row_bytes) && a(std::uintptr_t(p.x_shared)) &&
           a(p.x_shared_row_bytes) && a(std::uintptr_t(p.mid_act)) && a(p.mid_act_row_bytes);
  }

#if defined(ORDO_DEVICE_PASS)
  /// The pass's projections of weight row `wrow` for `live` pairs: qmv's window staging, every
  /// warp of the CTA calling it together (the __syncthreads are uniform); `row_live` false: the
  /// warp idles through the windows. Every lane returns the combined values.
  template <class F, class Rows>
  ORDO_DEVICE static void project_device(const std::byte* wrow, bool row_live, int nb, int live, const Rows& rows,
                                         std::byte* stage_mem, int lane, bool coop, float (&res)[R]) {
    constexpr int wb = int(stage_bytes<F, Policy> / qmv::dot_bytes<F>);
    float acc[R];
    if constexpr (qmv::int_chunk_cooperative::applies<F, Order>) {
      // K-quant blocks: qmv's chunk-cooperative arrangement (the same bits; no CTA barrier, and
      // `coop` is uniform over the CTA, so every warp takes the same branch). A warp whose row is
      // not live reads a live substitute row and its results are dropped by the caller.
      if (coop) {
        using act_block = typename F::activation::block;
        qmv::int_chunk_cooperative::accumulate_row<F, R>(
            reinterpret_cast<const typename F::block*>(wrow), nb, live,
            [&](int j, int b) -> const act_block& { return rows.row(j)[b]; }, lane, acc);
#pragma unroll
        for (int j = 0; j < R; ++j) {
          order::warp_lanes v{acc[j]};
          res[j] = order::combine<Order>(v);
        }
        return;
      }
    }
#pragma unroll
    for (int j = 0; j < R; ++j) acc[j] = 0.0f;
    for (int w0 = 0; w0 < nb; w0 += wb) {
      const int w1 = w0 + wb < nb ? w0 + wb : nb;
      if (row_live) qmv::copy_window(stage_mem, wrow + std::size_t(w0) * qmv::dot_bytes<F>, std::size_t(w1 - w0) * qmv::dot_bytes<F>, lane);
      __syncthreads();
      if (row_live) Steps::template accumulate<F, Order, R>(stage_mem, w0, w1, nb, lane, live, rows, acc);
      __syncthreads();
    }
#pragma unroll
    for (int j = 0; j < R; ++j) {
      order::warp_lanes v{acc[j]};
      res[j] = order::combine<Order>(v);
    }
  }

  /// gate_up pass 0 for unit u's output rows [r0, r1): each pass of ≤ R pairs, each row's gate and
  /// up projections (one warp per row), then mid = SwiGLU·w. Every warp walks the same loops.
  template <class F>
  ORDO_DEVICE static void project_rows_device(const problem& p, const unit_list<R>& ul, int u, int r0, int r1,
                                              const std::byte* gate, std::size_t gate_row_bytes, const std::byte* up,
                                              std::size_t up_row_bytes, std::byte* stage_mem, bool coop) {
    const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
    const int nb = p.n_embd / F::dot_elems, n_pairs = unit_pair_count(ul, p, u);
    for (int j0 = 0; j0 < n_pairs; j0 += R) {
      const int live = n_pairs - j0 < R ? n_pairs - j0 : R;
      const auto rows = pass_x_rows<typename F::activation::block, R>(ul, p, u, j0, live);
      for (int base = r0; base < r1; base += warps) {
        const int r = base + warp;
        const bool row_live = r < r1;
        const int rr = row_live ? r : r0;
        float g[R], v[R];
        project_device<F>(gate + std::size_t(rr) * gate_row_bytes, row_live, nb, live, rows, stage_mem, lane, coop, g);
        project_device<F>(up + std::size_t(rr) * up_row_bytes, row_live, nb, live, rows, stage_mem, lane, coop, v);
        if (row_live && lane == 0)
          for (int j = 0; j < live; ++j) write_mid(p, unit_pair(ul, p, u, j0 + j), r, g[j], v[j]);
      }
    }
  }

  /// gate_up pass 0: this CTA's slice (the shared expert's slices first).
  ORDO_DEVICE static void gate_up_slice_device(const problem& p, const unit_list<R>& ul, std::byte* stage_mem) {
    const bool coop = coop_aligned(p);
    const long b = long(blockIdx.x), shared_slices = slices(p, slice_rows<S>);
    if (b < shared_slices) {
      const int r0 = int(b) * slice_rows<S>, r1 = r0 + slice_rows<S> < p.n_ff ? r0 + slice_rows<S> : p.n_ff;
      project_rows_device<S>(p, ul, 0, r0, r1, p.shared_gate.data, p.shared_gate.row_bytes, p.shared_up.data,
                             p.shared_up.row_bytes, stage_mem, coop);
      return;
    }
    const long routed_slices = slices(p, slice_rows<GU>);
    const int u = 1 + int((b - shared_slices) / routed_slices);
    if (u > ul.n_units) return;  // the whole CTA leaves together
    const int r0 = int((b - shared_slices) % routed_slices) * slice_rows<GU>;
    const int r1 = r0 + slice_rows<GU> < p.n_ff ? r0 + slice_rows<GU> : p.n_ff;
    const std::size_t e = std::size_t(ul.expert[u - 1]);
    project_rows_device<GU>(p, ul, u, r0, r1, p.gate.data + e * p.gate.expert_bytes, p.gate.row_bytes,
                            p.up.data + e * p.up.expert_bytes, p.up.row_bytes, stage_mem, coop);
  }

  /// gate_up pass 1: one warp an item (pair, chunk of mid), items strided over every warp of the
  /// grid. A pair in a unit (the shared slot of every row; a routed slot whose expert id is in
  /// range: the pairs build_units keeps) has its chunk of mid (written by pass 0) quantized into
  /// its activation blocks (q8_k, q8_32: the warp per block, quantize_warp.hpp; others:
  /// A::quantize, one lane per block, as quantize_chunk) in the warp's shared memory, then copied
  /// bytewise to mid_act (whose rows need no alignment). A block's bytes are a function of its
  /// floats alone, so who quantizes it changes no bit. No unit list: one CTA per (unit, chunk),
  /// each building the list, was 6208 CTAs and 139 µs of the mxfp4 step at 16 rows on the H100
  /// (session 15, ncu).
  template <class A>
  ORDO_DEVICE static void quantize_pair_chunk(const problem& p, std::size_t s, int c, int lane, std::byte* stage_mem) {
    using block = typename A::block;
    constexpr int n_blocks = chunk / A::block_elems;
    constexpr int out_bytes = n_blocks * int(sizeof(block));
    const float* src = p.mid + s * p.mid_stride + std::size_t(c) * chunk;
    auto* qb = reinterpret_cast<block*>(stage_mem);  // [n_blocks]
    if constexpr (std::is_same_v<A, quant::q8_32>) {
      quantize_rows::quantize_q8_32_blocks_warp<n_blocks>(src, qb, lane);  // the chunk's blocks side by side
    } else if constexpr (std::is_same_v<A, quant::q8_k>) {
      for (int b = 0; b < n_blocks; ++b) quantize_rows::quantize_block_warp<A>(src + b * A::block_elems, qb[b], lane);
    } else {
      for (int b = lane; b < n_blocks; b += 32) A::quantize(src + b * A::block_elems, qb[b]);
    }
    warp_barrier();  // every lane's bytes are in place before the copy reads them
    const auto* q = reinterpret_cast<const std::byte*>(qb);
    std::byte* dst = p.mid_act + s * p.mid_act_row_bytes + std::size_t(c) * std::size_t(out_bytes);
    for (int e = lane; e < out_bytes; e += 32) dst[e] = q[e];
    warp_barrier();  // the copy has read the stage before the warp's next item rewrites it
  }
  ORDO_DEVICE static void quantize_mid_device(const problem& p, std::byte* stage_mem) {
    const int lane = int(threadIdx.x) % 32;
    const long first = long(blockIdx.x) * warps + int(threadIdx.x) / 32, stride = long(gridDim.x) * warps;
    for (long item = first; item < quantize_items(p); item += stride) {  // per warp: uniform
      const int c = int(item % chunks(p)), slot = int(item / chunks(p));
      const int i = slot / (p.n_used + 1), k = slot % (p.n_used + 1);
      if (k == p.n_used) {
        quantize_pair_chunk<typename S::activation>(p, std::size_t(slot), c, lane, stage_mem);
      } else {
        const int e = Steps::expert_of(p, i, k);
        if (e >= 0 && e < p.n_expert) quantize_pair_chunk<typename D::activation>(p, std::size_t(slot), c, lane, stage_mem);
      }
    }
  }

  /// down: the CTA's output rows (one per warp), each visiting every unit; a pair's partial lands in
  /// its (row, slot) place and the row's sum runs last in steps::weighted_sum order.
  ORDO_DEVICE static void down_rows_device(const problem& p, const unit_list<R>& ul, std::byte* shared,
                                           std::byte* stage_mem) {
    const bool coop = coop_aligned(p);
    const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
    auto* part = reinterpret_cast<float(*)[slots_per_row]>(shared + units_bytes + std::size_t(warps) * stage) + warp * R;
    for (int base = int(blockIdx.x) * warps; base < p.n_embd; base += int(gridDim.x) * warps) {
      const int o = base + warp;
      const bool row_live = o < p.n_embd;
      const int oo = row_live ? o : 0;
      if (lane < p.rows)
        for (int k = 0; k <= p.n_used; ++k) part[lane][k] = missing_partial();
      __syncthreads();  // uniform: every warp of the CTA walks the same output-row loop
      for (int u = 0; u <= ul.n_units; ++u) {
        const int n_pairs = unit_pair_count(ul, p, u);
        for (int j0 = 0; j0 < n_pairs; j0 += R) {
          const int live = n_pairs - j0 < R ? n_pairs - j0 : R;
          float res[R];
          if (u == 0) {
            project_device<S>(p.shared_down.data + std::size_t(oo) * p.shared_down.row_bytes, row_live, p.n_ff / S::dot_elems,
                              live, pass_mid_rows<typename S::activation::block, R>(ul, p, u, j0, live), stage_mem, lane, coop,
                              res);
          } else {
            const std::size_t e = std::size_t(ul.expert[u - 1]);
            project_device<D>(p.down.data + e * p.down.expert_bytes + std::size_t(oo) * p.down.row_bytes, row_live,
                              p.n_ff / D::dot_elems, live, pass_mid_rows<typename D::activation::block, R>(ul, p, u, j0, live),
                              stage_mem, lane, coop, res);
          }
          if (row_live && lane == 0)
            for (int j = 0; j < live; ++j) {
              const int code = unit_pair(ul, p, u, j0 + j);
              part[code / slots_per_row][code % slots_per_row] = res[j];
            }
        }
      }
      __syncthreads();  // uniform: every warp of the CTA walks the same output-row loop
      if (row_live && lane < p.rows) write_out(p, lane, o, part[lane]);
      __syncthreads();  // uniform: every warp of the CTA walks the same output-row loop
    }
  }

  /// Pass I of the phase (ops/gpu_entry.hpp's kernel of dependent passes).
  template <int I>
  ORDO_DEVICE static void run_phase(const problem& p, std::byte* shared) {
#if defined(ORDO_GPU_CUDA)
    // Where launched as a dependent (try_specialized_launch) nothing is read before the kernel
    // before has completed; a plain launch returns from the wait at once.
    qmv::dependent_launch::allow_dependents();
    qmv::dependent_launch::wait_for_predecessor();
#endif
    std::byte* stage_mem = shared + units_bytes + std::size_t(int(threadIdx.x) / 32) * stage;
    if constexpr (P == phase::gate_up && I == 1) {
      quantize_mid_device(p, stage_mem);  // needs no unit list
    } else {
      auto& ul = *reinterpret_cast<unit_list<R>*>(shared);
      build_units_cta<Steps, R>(p, ul);
      __syncthreads();  // the first warp's unit list to every thread
      if constexpr (P == phase::down)
        down_rows_device(p, ul, shared, stage_mem);
      else
        gate_up_slice_device(p, ul, stage_mem);
    }
  }
#endif
};

}  // namespace ordo::ops::moe
