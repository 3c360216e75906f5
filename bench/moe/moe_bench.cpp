// bench/moe: time of one grouped MoE step (the registry's moe gate_up launch, then its down launch,
// lane-strided order) at DS4 dims (n_embd 4096, n_ff_exp 2048, 256 routed experts, 6 used, the
// Q8_0 shared expert) at tiers 1–8 and 16, next to a copy bandwidth measured in the same run.
//
//   moe_bench [--iters N] [--layouts q2,mxfp4] [--tiers 1,2,...,16] [--markdown FILE] [--tsv FILE] [--variants] [--passes]
//             [--plain-launches]
//
// --variants also times shapes of the streamed passes (ops/moe/streaming.hpp: warps per CTA, ring
// stages, gate_up output rows per item, down output rows per item, CTAs per SM, the Granular
// window statement, the window's loop order, the chunk window's unrolling) other than the
// preset's, at the tiers of variant_tiers (the tuning's), to choose the preset's. They run
// the same operations in the same order, so only speed may differ: each variant's step output is
// compared bit for bit with the preset's on the same routing at each tier, and a difference fails
// the run (exit 1). The GPU tests check the preset's against the CPU executor.
// --tiers limits every table (and the variants) to those tiers, e.g. for a profiler run of one.
// --passes also times each tier's gate_up launch (the streamed pass 0 and the quantize pass) and
// its down launch alone, back to back, to say which pass a step's time is in.
// --plain-launches launches the streamed passes plainly instead of as dependents of the launch
// before (ops/qmv/dependent_launch.hpp), to measure what that overlap saves in the same run (a HIP
// build has no dependent launches: its launches are always plain).
//
// The routed tensors are the full 256-expert [n_expert][n_out][row] shape (≥ 1.8 GB per layout, so
// launches read HBM, not the 50 MB L2); every step of a batch uses another of 64 drawn routings
// (each row 6 distinct experts of 256, uniformly), so steps cycle over the experts. Bytes of a
// step = the union of the step's selected experts × (gate + up + down bytes of one expert) + the
// shared expert + the x, mid, mid_act and out traffic; GB/s = bytes / time; the floor is those
// bytes at the copy bandwidth (the 1 GiB device-to-device memcpy's read + write bytes per second,
// measured here, now); GB/s is also given as a share of the streaming-read bandwidth (16-byte
// loads over 1 GiB, gpu/read_bandwidth.hpp), the other ceiling issue 12 asks for. Time: GPU
// events over N back-to-back steps / N, the median of 3 batches.
#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ordo/gpu/copy_bandwidth.hpp"
#include "ordo/gpu/device_api.hpp"
#include "ordo/gpu/read_bandwidth.hpp"
#include "ordo/ops/moe/moe.hpp"
#include "ordo/ops/qmv/dependent_launch.hpp"
#include "ordo/quant/random_block.hpp"
#include "ordo/registry/all_ops.hpp"
#include "ordo/tier/rows.hpp"

namespace {

/// A shape of the streamed moe passes: warps per CTA, ring stages of gate_up and of down, gate_up /
/// down output rows per item, CTAs an SM must hold (caps the registers), whether window_terms'
/// Granular statement runs where it can (streaming.hpp config::granular), its loop order (RO: 1
/// rows outermost, 0 pairs outermost, -1 the preset's choice by registers), the chunk window's
/// unrolled steps (CU), the KB of shared memory down may stage mid_act in (MidKB; the preset's 64
/// stages tiers 1-4), down's warps a CTA and CTAs an SM (DW, DM; 0: W and M), the rows of a chunk
/// format's window that walk together (CR; streaming.hpp config::chunk_rows); gate_up deals its
/// items boustrophedon (ops/moe/item_deal.hpp; sessions 8-9 measured round-robin slower); a routed
/// unit's pass takes at most PR pairs (streaming.hpp config::routed_pairs; 0: the tier's). CR and
/// PR 0: the preset's rule.
template <int W, int S, int DS, int GR, int DR, int M, bool G, int RO = -1, int CU = 1, int MidKB = 64, int DW = 0, int DM = 0,
          int CR = 0, int PR = 0>
struct variant : ordo::tune::preset::qmv::policy {
  static constexpr int moe_down_warps = DW ? DW : W, moe_down_min_ctas = DM ? DM : M;
  static constexpr int moe_streaming_warps = W, moe_streaming_stages = S, moe_down_stages = DS, moe_gate_up_rows = GR;
  static constexpr int moe_down_rows = DR, moe_streaming_min_ctas = M, moe_rows_outer = RO, moe_chunk_step_unroll = CU;
  static constexpr int moe_chunk_rows = CR, moe_routed_pass_pairs = PR;
  static constexpr std::size_t moe_mid_act_budget = std::size_t(MidKB) * 1024;
  static constexpr bool moe_boustrophedon = true, moe_streaming_granular = G;
  static constexpr bool moe_streaming_fixed_shape = true;  // these fields at every tier
  static std::string name() {
    return std::to_string(W) + "/" + std::to_string(S) + "/" + std::to_string(DS) + "/" + std::to_string(GR) + "/" +
           std::to_string(DR) + "/" + std::to_string(M) + (G ? " granular" : "") +
           (RO < 0 ? "" : RO ? " rows-outer" : " pairs-outer") + (CU == 1 ? "" : " chunk-unroll " + std::to_string(CU)) +
           (MidKB == 64 ? "" : " mid_act " + std::to_string(MidKB) + " KB") +
           (DW || DM ? " down " + std::to_string(moe_down_warps) + " warps/" + std::to_string(moe_down_min_ctas) : "") +
           (CR == 0 ? "" : " chunk rows " + std::to_string(CR)) + (PR == 0 ? "" : " routed passes of " + std::to_string(PR));
  }
};
/// Knobs a preset_variant adds to the preset only where asked (a policy member's presence is the
/// knob): the MXFP4 decoder picked by the tier, not the pass's pairs (config::decoder_rows), and
/// down's mid_act budget in KB (config::mid_act_budget; 0: the q2 layout's down pass reads mid_act
/// from global memory, as before session 21).
template <bool ByTier>
struct decoder_knob {};
template <>
struct decoder_knob<true> {
  static constexpr bool moe_decoder_by_tier = true;
};
template <int MidKB>
struct mid_act_knob {
  static constexpr std::size_t moe_mid_act_budget = std::size_t(MidKB) * 1024;
};
template <>
struct mid_act_knob<-1> {};
template <int XKB>
struct x_copy_knob {
  static constexpr std::size_t moe_x_copy_budget = std::size_t(XKB) * 1024;
};
template <>
struct x_copy_knob<-1> {};
template <int Fused>
struct fused_knob {
  static constexpr bool moe_fused_sign_dot = Fused != 0;
};
template <>
struct fused_knob<-1> {};
template <int Warps>
struct warps_knob {  // Warps a CTA, one CTA an SM, both passes
  static constexpr int moe_streaming_warps = Warps, moe_streaming_min_ctas = 1;
};
template <>
struct warps_knob<0> {};
template <int Rows>
struct down_rows_knob {  // down's items of Rows output rows
  static constexpr int moe_down_rows = Rows;
};
template <>
struct down_rows_knob<0> {};
template <int Warps>
struct down_warps_knob {  // down's CTAs of Warps warps, one an SM
  static constexpr int moe_down_warps = Warps, moe_down_min_ctas = 1;
};
template <>
struct down_warps_knob<0> {};
template <int Dual>
struct dual_knob {  // down's windows take two routed passes or one (streaming.hpp config::dual_units)
  static constexpr bool moe_down_dual_units = Dual != 0;
};
template <>
struct dual_knob<-1> {};
template <bool Narrow>
struct narrow_stage_knob {  // down's ring rows sized for the shared format's window (config::down_stage_row_bytes)
  static constexpr bool moe_down_narrow_stage = true;
};
template <>
struct narrow_stage_knob<false> {};
template <int Stages>
struct down_stages_knob {  // down's ring buffers a warp (config::down_stages; Stages − 1 windows in flight)
  static constexpr int moe_down_stages = Stages;
};
template <>
struct down_stages_knob<0> {};
template <int Ctas>
struct down_ctas_knob {  // down's CTAs an SM must hold (config::down_min_ctas: caps its registers)
  static constexpr int moe_down_min_ctas = Ctas;
};
template <>
struct down_ctas_knob<0> {};
template <int Split>
struct down_split_knob {  // down items walked by Split warps, every Split-th pass each (config::down_split)
  static constexpr int moe_down_split = Split;
};
template <>
struct down_split_knob<0> {};
template <int Weight>
struct split_weight_knob {  // split items in ranges, the shared pass weighing Weight routed ones (config::down_split_shared_weight)
  static constexpr int moe_down_split_shared_weight = Weight;
};
template <>
struct split_weight_knob<-1> {};
/// The preset's shapes, a routed unit's pass taking at most PR pairs (0: the preset's rule;
/// streaming.hpp config::routed_pairs), IQ2_XXS windows decoding with tables T (config::iq2_tables:
/// 0 the format's, 1 the grid copied to shared memory, the preset's; 2 the grid and the sign
/// masks), and the knobs above (ByTier; MidKB, XKB -1: the preset's budgets; Fused 0/1: IQ2_XXS's
/// fused decode_dot off or on at every tier, -1 the preset's rule; Warps: that many warps in one
/// CTA an SM, 0 the preset's shape).
template <int PR, int T = 1, bool ByTier = false, int MidKB = -1, int XKB = -1, int Fused = -1, int Warps = 0, int DownRows = 0,
          int DownWarps = 0, int Dual = -1, bool NarrowStage = false, int DownStages = 0,
          int DownCtas = 0, int DownSplit = 0, int SplitWeight = -1>
struct preset_variant : ordo::tune::preset::qmv::policy, decoder_knob<ByTier>, mid_act_knob<MidKB>, x_copy_knob<XKB>,
                        fused_knob<Fused>, warps_knob<Warps>, down_rows_knob<DownRows>, down_warps_knob<DownWarps>,
                        dual_knob<Dual>, narrow_stage_knob<NarrowStage>, down_stages_knob<DownStages>,
                        down_ctas_knob<DownCtas>, down_split_knob<DownSplit>,
                        split_weight_knob<SplitWeight> {
  static constexpr int moe_routed_pass_pairs = PR, moe_iq2_tables = T;
  static std::string name() {
    return std::string("preset shapes") + (PR ? ", routed passes of " + std::to_string(PR) : "") +
           (T == 0 ? ", grid in global memory" : T == 2 ? ", grid and signs in shared memory" : "") +
           (ByTier ? ", MXFP4 decoder by the tier" : "") +
           (MidKB < 0 ? "" : MidKB == 0 ? ", mid_act from global memory" : ", mid_act budget " + std::to_string(MidKB) + " KB") +
           (XKB < 0 ? "" : XKB == 0 ? ", x from global memory" : ", x copy budget " + std::to_string(XKB) + " KB") +
           (Fused < 0 ? "" : Fused ? ", IQ2_XXS decode_dot at every tier" : ", no IQ2_XXS decode_dot") +
           (Warps == 0 ? "" : ", " + std::to_string(Warps) + " warps in one CTA an SM") +
           (DownRows == 0 ? "" : ", down items of " + std::to_string(DownRows) + " rows") +
           (DownWarps == 0 ? "" : ", down " + std::to_string(DownWarps) + " warps in one CTA an SM") +
           (Dual < 0 ? "" : Dual ? ", down windows of two routed passes" : ", down windows of one pass") +
           (NarrowStage ? ", down slot rows of the Q8_0 window" : "") +
           (DownStages == 0 ? "" : ", " + std::to_string(DownStages) + " down ring stages") +
           (DownCtas == 0 ? "" : ", down CTAs of " + std::to_string(DownCtas) + " an SM") +
           (DownSplit == 0   ? ""
            : DownSplit == 1 ? ", down items walked by one warp"
                             : ", down items split over " + std::to_string(DownSplit) + " warps") +
           (SplitWeight < 0 ? "" : " in ranges (shared pass as " + std::to_string(SplitWeight) + " routed)");
  }
};
/// Session 26's lists. The preset splits down items of 4 rows over two warps in the q2 layout at
/// 2-8 rows (mid_act then from global memory) and in the mxfp4 layout at 16 (config::down_split),
/// so each layout first times session 23's preset in the same run: items of 2 rows a warp alone,
/// mid_act's 64 KB budget (so its copy at 1-4 rows, and two-pass windows at 5-8 in the q2 layout).
/// q2 also: the split at every tier (1 and 16 too) with the down ring's rows sized for the Q8_0
/// window (1104 bytes, 70.6 KB of rings a CTA) and a 40 KB mid_act budget, which copies mid_act at
/// 1-2 rows (32.7 KB at 2) where two CTAs an SM still fit (the copy was worth 3-7% at 1-4 rows to
/// the one-warp items, session 21; with the split's 87 KB of Q2_K-sized rings it left one CTA an
/// SM: 108.3 µs at 2 rows against 97.1 without, session 24 call 1). Session 25's lists also timed
/// the down pass asking the L2 for its items' rows ahead (cp.async.bulk.prefetch.L2), at every
/// tier: slower at 1-4 rows, winning only where the split wins more (session 26 call 2), so that
/// knob is gone.
/// Session 24 call 1 timed session 23's lists (PERFORMANCE.md): for the q2 layout session 22's
/// narrow-stage variants (a 16-warp down CTA holding mid_act at 5-8 rows; two-pass windows beside
/// the copy), 3 and 4 down ring stages with both ring rows, items of one row in four CTAs an SM,
/// and the split four ways (with mid_act's copy, without it, in ranges with the shared pass as 4
/// routed ones, in narrow rows at 3 stages); for mxfp4 the split with mid_act capped at 64 KB.
using mxfp4_variants = ordo::meta::type_list<preset_variant<0, 1, false, -1, -1, -1, 0, 2, 0, -1, false, 0, 0, 1>>;
using q2_variants = ordo::meta::type_list<preset_variant<0, 1, false, 64, -1, -1, 0, 2, 0, -1, false, 0, 0, 1>,
                                          preset_variant<0, 1, false, 40, -1, -1, 0, 4, 0, -1, true, 0, 0, 2>>;
/// Earlier lists: session 22 call 8 timed one-pass windows at every tier and
/// two-pass ones with and without mid_act's copy (config::dual_units); call 2 down items of 4 rows:
/// 4-12% slower at 1-8 rows (half the items, so half the warps idle).
/// Session 21 timed x from global memory, IQ2_XXS's fused decode_dot at every tier and at none,
/// and 16 warps in one CTA an SM (PERFORMANCE.md). The rule takes 1 pair at 3 since session 20, 2 at
/// 4-6 (4 since session 21) and 16, 4 at 7-8. Earlier lists and what they measured are in
/// docs/PERFORMANCE.md (session 19: mxfp4 passes of 1 pair at every tier; session 18: the IQ2_XXS
/// tables copied, passes of 1, 2 and 4 pairs, the
/// narrow shape with passes of one pair; session 17: a chunk window's rows one at a time; session
/// 15: mxfp4's narrow16 built for its own tier at 6-8, the narrow shape at every tier, narrow16 at
/// tiers 1-2, its 64 KB budget, three narrow CTAs an SM, gate_up items of 4 rows, down items of 4
/// rows, the wide shape, the window's pairs outermost, 32 KB; q2's wide shape at tiers 1-8;
/// session 12: 3 and 4 ring stages).
/// The variants timed for layout L (none for q8_0: its formats are mxfp4's shared one).
template <class L>
using variants_of =
    std::conditional_t<std::is_same_v<L, ordo::ops::moe::q2_layout>, q2_variants,
                       std::conditional_t<std::is_same_v<L, ordo::ops::moe::mxfp4_layout>, mxfp4_variants, ordo::meta::type_list<>>>;
/// The tiers the variants run at: the tuning's (cuda-sm90: 1-8 and 16; session 15 timed the wide
/// shape at 16 1212.6 µs, down items of 4 rows 1092.2, 16 down warps 1062.8, gate_up items of 4
/// rows 2966.1, against the preset's 1024.5). The check presets, which CI only compiles, list
/// fewer, so their moe_bench builds every variant at those tiers alone (cuda-check's at 1, 3 and
/// 16 compiled in 639 s on 2 cores with all nine tiers, session 23).
using variant_tiers = ordo::tune::preset::qmv::tiers::as_rows<ordo::meta::type_list>;

using namespace ordo;

constexpr int n_embd = 4096, n_ff = 2048, n_expert = 256, n_used = 6, n_routings = 64;
constexpr int all_tiers[] = {1, 2, 3, 4, 5, 6, 7, 8, 16};

/// Whether `tier` is among the tiers asked for (--tiers; empty: every tier).
bool wanted(const std::vector<int>& tiers, int tier) { return tiers.empty() || std::find(tiers.begin(), tiers.end(), tier) != tiers.end(); }

using gpu::copy_bandwidth_gbs;

/// One matrix [n_out][k] of random blocks of F (the same matrix is replicated to every expert:
/// bandwidth does not depend on the values).
template <class F>
std::vector<std::byte> random_matrix(int n_out, int k, std::uint64_t seed) {
  const std::size_t blocks = std::size_t(n_out) * std::size_t(k / F::block_elems);
  std::vector<std::byte> w(blocks * F::block_bytes);
  quant::splitmix64 rng{seed};
  auto* b = reinterpret_cast<typename F::block*>(w.data());
  for (std::size_t i = 0; i < blocks; ++i) b[i] = quant::random_block<F>(rng, 0.02f);
  return w;
}

/// A device tensor of n copies of `host`.
gpu::device_buffer<std::byte> replicated(const std::vector<std::byte>& host, int n) {
  gpu::device_buffer<std::byte> d(host.size() * std::size_t(n));
  for (int i = 0; i < n; ++i) gpu::copy_to_device(d.data() + std::size_t(i) * host.size(), host.data(), host.size());
  return d;
}

struct result {
  std::string layout;
  int tier;
  double us, bytes, experts;
};

template <class L>
bool bench_layout(int iters, const std::vector<int>& tiers, bool with_variants, bool with_passes, std::vector<result>& results) {
  using GU = typename L::gate_up;
  using D = typename L::down;
  using S = typename L::shared;
  const auto g_host = random_matrix<GU>(n_ff, n_embd, 1), d_host = random_matrix<D>(n_embd, n_ff, 2);
  const auto sg_host = random_matrix<S>(n_ff, n_embd, 3), sd_host = random_matrix<S>(n_embd, n_ff, 4);
  auto gate = replicated(g_host, n_expert), up = replicated(g_host, n_expert), down = replicated(d_host, n_expert);
  auto sgate = replicated(sg_host, 1), sup = replicated(sg_host, 1), sdown = replicated(sd_host, 1);
  const std::size_t gu_row = g_host.size() / n_ff, d_row = d_host.size() / n_embd;
  const std::size_t s_in = sg_host.size() / n_ff, s_out = sd_host.size() / n_embd;
  const std::size_t expert_bytes = 2 * g_host.size() + d_host.size(), shared_bytes = 2 * sg_host.size() + sd_host.size();
  constexpr int R_max = 16, slots = n_used + 1;
  // x and its activations, routings, workspace, out: sized for the largest tier
  quant::splitmix64 rng{7};
  std::vector<float> x(std::size_t(R_max) * n_embd);
  for (auto& v : x) v = quant::uniform_pm1(rng);
  gpu::device_buffer<float> dx(x.size());
  dx.upload(x.data(), x.size());
  const std::size_t xr_row = ops::moe::act_row_bytes<typename GU::activation>(n_embd);
  const std::size_t xs_row = ops::moe::act_row_bytes<typename S::activation>(n_embd);
  gpu::device_buffer<std::byte> xr(xr_row * R_max), xs(xs_row * R_max);
  registry::find_axes<ops::quantize_rows::op>(GU::activation::name).launch_gpu({dx.data(), std::size_t(n_embd), xr.data(), xr_row, n_embd, R_max}, nullptr);
  registry::find_axes<ops::quantize_rows::op>(S::activation::name).launch_gpu({dx.data(), std::size_t(n_embd), xs.data(), xs_row, n_embd, R_max}, nullptr);
  std::vector<std::int32_t> ids(std::size_t(n_routings) * R_max * n_used);
  std::vector<float> weights(ids.size());
  for (int r = 0; r < n_routings * R_max; ++r) {
    std::vector<std::int32_t> row;
    while (int(row.size()) < n_used) {
      const auto e = std::int32_t(rng() % n_expert);
      if (std::find(row.begin(), row.end(), e) == row.end()) row.push_back(e);
    }
    for (int k = 0; k < n_used; ++k) {
      ids[std::size_t(r) * n_used + std::size_t(k)] = row[std::size_t(k)];
      weights[std::size_t(r) * n_used + std::size_t(k)] = 0.25f;
    }
  }
  gpu::device_buffer<std::int32_t> dids(ids.size());
  gpu::device_buffer<float> dweights(weights.size());
  dids.upload(ids.data(), ids.size());
  dweights.upload(weights.data(), weights.size());
  const std::size_t mid_act_row = ops::moe::mid_act_row_bytes<L>(n_ff);
  gpu::device_buffer<float> mid(std::size_t(R_max) * slots * n_ff), out(std::size_t(R_max) * n_embd);
  gpu::device_buffer<std::byte> mid_act(std::size_t(R_max) * slots * mid_act_row);

  auto make_problem = [&](int tier) {
    ops::moe::problem p{};
    p.x_routed = xr.data();
    p.x_routed_row_bytes = xr_row;
    p.x_shared = xs.data();
    p.x_shared_row_bytes = xs_row;
    p.route_stride = n_used;
    p.gate = {gate.data(), gu_row, g_host.size()};
    p.up = {up.data(), gu_row, g_host.size()};
    p.down = {down.data(), d_row, d_host.size()};
    p.shared_gate = {sgate.data(), s_in};
    p.shared_up = {sup.data(), s_in};
    p.shared_down = {sdown.data(), s_out};
    p.mid = mid.data();
    p.mid_stride = n_ff;
    p.mid_act = mid_act.data();
    p.mid_act_row_bytes = mid_act_row;
    p.out = out.data();
    p.out_stride = n_embd;
    p.n_embd = n_embd;
    p.n_ff = n_ff;
    p.n_expert = n_expert;
    p.n_used = n_used;
    p.rows = tier;
    p.clamp = 10.0f;
    return p;
  };
  // Median-of-3 µs per step of `launch` (gate_up, then down); routing r: rows r·tier .. of the
  // drawn table (distinct rows for every step of a cycle)
  auto time_steps = [&](int tier, const auto& launch) {
    auto p = make_problem(tier);
    auto step = [&](int r) {
      const std::size_t at = std::size_t(r % (n_routings * R_max / tier)) * std::size_t(tier) * n_used;
      p.expert_ids = dids.data() + at;
      p.expert_weights = dweights.data() + at;
      launch(p);
    };
    for (int i = 0; i < 5; ++i) step(i);
    gpu::synchronize();
    std::vector<double> batch;
    for (int rep = 0; rep < 3; ++rep) {
      gpu::event_timer t;
      t.record_start();
      for (int i = 0; i < iters; ++i) step(rep * iters + i);
      batch.push_back(t.elapsed_ms() * 1e3 / iters);
    }
    std::sort(batch.begin(), batch.end());
    return batch[1];
  };
  auto union_experts = [&](int tier) {
    double experts = 0;
    const int cycle = n_routings * R_max / tier;
    for (int r = 0; r < cycle; ++r) {
      std::set<int> u;
      for (int j = 0; j < tier * n_used; ++j) u.insert(ids[std::size_t(r) * tier * n_used + std::size_t(j)]);
      experts += double(u.size()) / cycle;
    }
    return experts;
  };

  // The step output of routing 0 at a tier (out's first tier rows), for the variants' bit check.
  auto step_output = [&](int tier, const auto& launch) {
    auto p = make_problem(tier);
    p.expert_ids = dids.data();
    p.expert_weights = dweights.data();
    gpu::device_memset(out.data(), 0, out.size() * sizeof(float));
    launch(p);
    gpu::synchronize();
    std::vector<float> h(std::size_t(tier) * n_embd);
    out.download(h.data(), h.size());
    return h;
  };
  auto entries = [&](int tier) {
    const std::string base = std::string("moe.") + std::string(L::name) + ".r" + std::to_string(tier) + ".ls32.";
    return std::pair<const registry::entry<ops::moe::op>&, const registry::entry<ops::moe::op>&>{
        registry::find<ops::moe::op>(base + "gate_up"), registry::find<ops::moe::op>(base + "down")};
  };
  for (int tier : all_tiers) {
    if (!wanted(tiers, tier)) continue;
    const auto [gu, dn] = entries(tier);
    const double us = time_steps(tier, [&](const ops::moe::problem& p) {
      gu.launch_gpu(p, nullptr);
      dn.launch_gpu(p, nullptr);
    });
    const double experts = union_experts(tier);
    // bytes: union of experts' weights + shared + x (read by each pass at most once per unit: counted once) +
    // mid and mid_act written and read, out written
    const double bytes = experts * double(expert_bytes) + double(shared_bytes) + double(tier) * double(xr_row + xs_row) +
                         double(tier) * slots * (2.0 * 4 * n_ff + 2.0 * double(mid_act_row)) + 4.0 * tier * n_embd;
    results.push_back({std::string(L::name), tier, us, bytes, experts});
    std::printf("%s r%d: %.1f us", std::string(L::name).c_str(), tier, us);
    if (with_passes) {
      const double gu_us = time_steps(tier, [&](const ops::moe::problem& p) { gu.launch_gpu(p, nullptr); });
      const double dn_us = time_steps(tier, [&](const ops::moe::problem& p) { dn.launch_gpu(p, nullptr); });
      std::printf("  (alone: gate_up + quantize %.1f us, down %.1f us)", gu_us, dn_us);
    }
    std::printf("\n");
    std::fflush(stdout);
  }
  bool same_bits = true;
  // Times each variant of list Vs at tiers Rs (those of `tiers` only), its step output checked
  // bit for bit against the preset's at each.
  auto time_variants = [&]<int... Rs, class... Vs>(meta::type_list<tier::rows<Rs>...>, meta::type_list<Vs...>) {
    if (!(wanted(tiers, Rs) || ...) || sizeof...(Vs) == 0) return;
    std::map<int, std::vector<float>> preset;
    for (int tier : {Rs...}) {
      if (!wanted(tiers, tier)) continue;
      const auto [gu, dn] = entries(tier);
      preset[tier] = step_output(tier, [&](const ops::moe::problem& p) {
        gu.launch_gpu(p, nullptr);
        dn.launch_gpu(p, nullptr);
      });
    }
    std::printf("\n%s variants (warps/gate_up stages/down stages/gate_up rows/down rows/min CTAs granular): µs per step at tiers",
                std::string(L::name).c_str());
    ((wanted(tiers, Rs) ? std::printf(" %d", Rs) : 0), ...);
    std::printf("\n");
    auto each = [&]<class V>() {
      auto run = [&]<int R>() {
        if (!wanted(tiers, R)) return;
        using gate_up = ops::moe::kernel<L, R, order::lane_strided, ops::moe::phase::gate_up, V>;
        using down = ops::moe::kernel<L, R, order::lane_strided, ops::moe::phase::down, V>;
        auto launch = [&](const ops::moe::problem& p) {
          ops::launch_gpu<gate_up>(p, nullptr);
          ops::launch_gpu<down>(p, nullptr);
        };
        const auto mine = step_output(R, launch);
        const auto& want = preset.at(R);
        if (std::memcmp(mine.data(), want.data(), want.size() * sizeof(float)) != 0) {
          std::printf("FAIL: %s variant %s at tier %d: the step output differs from the preset's\n", std::string(L::name).c_str(),
                      V::name().c_str(), R);
          same_bits = false;
        }
        std::printf(" %.1f |", time_steps(R, launch));
      };
      std::printf("| %s | %s |", std::string(L::name).c_str(), V::name().c_str());
      (run.template operator()<Rs>(), ...);
      std::printf("\n");
      std::fflush(stdout);
    };
    (each.template operator()<Vs>(), ...);
  };
  if (with_variants) {
    time_variants(variant_tiers{}, variants_of<L>{});
    std::printf("%s variants: every step output %s the preset's bits\n", std::string(L::name).c_str(), same_bits ? "has" : "does NOT have");
  }
  return same_bits;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

const char* launch_mode() {
  namespace dl = ops::qmv::dependent_launch;
  return !dl::available ? "plain (no dependent launches on this backend)" : dl::enabled() ? "dependent" : "plain";
}

}  // namespace

int main(int argc, char** argv) {
  int iters = 50;
  bool with_variants = false, with_passes = false;
  std::string markdown, tsv;
  std::vector<std::string> layouts = {"q2", "mxfp4"};
  std::vector<int> tiers;  // empty: every tier
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--iters" && i + 1 < argc) iters = std::stoi(argv[++i]);
    else if (a == "--markdown" && i + 1 < argc) markdown = argv[++i];
    else if (a == "--tsv" && i + 1 < argc) tsv = argv[++i];
    else if (a == "--layouts" && i + 1 < argc) layouts = split(argv[++i]);
    else if (a == "--tiers" && i + 1 < argc) {
      for (const auto& t : split(argv[++i])) {
        const int tier = std::atoi(t.c_str());
        if (std::find(std::begin(all_tiers), std::end(all_tiers), tier) == std::end(all_tiers)) {
          std::fprintf(stderr, "moe_bench: --tiers: '%s' is not a benchmarked tier (1-8, 16)\n", t.c_str());
          return 2;
        }
        tiers.push_back(tier);
      }
    }
    else if (a == "--variants") with_variants = true;
    else if (a == "--passes") with_passes = true;
    else if (a == "--plain-launches") ops::qmv::dependent_launch::enabled() = false;
    else if (a == "--help" || a == "-h") {
      std::printf("usage: moe_bench [--iters N] [--layouts q2,mxfp4] [--tiers 1,2,...,16] [--markdown FILE] [--tsv FILE] [--variants] [--passes] [--plain-launches]\n");
      return 0;
    } else {
      std::fprintf(stderr, "moe_bench: unknown argument '%s' (see --help)\n", a.c_str());
      return 2;
    }
  }
  if (gpu::device_count() == 0) {
    std::printf("SKIP: no GPU device\n");
    return 0;
  }
  const auto dev = gpu::query_device(0);
  const double copy_gbs = copy_bandwidth_gbs();
  const double read_gbs = gpu::read_bandwidth_gbs(dev.multiprocessors);
  std::printf("device %s, %d SMs, tune preset %s, %s launches\ncopy bandwidth (1 GiB D2D memcpy, read+write): %.0f GB/s\n"
              "streaming read (1 GiB, 16-byte loads): %.0f GB/s\n\n",
              dev.name.c_str(), dev.multiprocessors, tune::name, launch_mode(), copy_gbs, read_gbs);
  std::vector<result> results;
  bool same_bits = true;
  for (const auto& l : layouts) {
    if (l == "q2") same_bits &= bench_layout<ops::moe::q2_layout>(iters, tiers, with_variants, with_passes, results);
    else if (l == "mxfp4") same_bits &= bench_layout<ops::moe::mxfp4_layout>(iters, tiers, with_variants, with_passes, results);
    else if (l == "q8_0") same_bits &= bench_layout<ops::moe::q8_0_layout>(iters, tiers, with_variants, with_passes, results);
    else {
      std::fprintf(stderr, "moe_bench: layout '%s' is not benchmarked (q2, mxfp4, q8_0)\n", l.c_str());
      return 2;
    }
  }
  std::string table =
      "| layout | tier | experts in the union | µs/step | floor µs at copy BW | GB/s | % of copy BW | % of read BW | time vs tier 1 |\n"
      "|---|---|---|---|---|---|---|---|---|\n";
  std::string rows_tsv = "layout\ttier\texperts\tus\tbytes\tcopy_gbs\tread_gbs\n";
  for (const auto& r : results) {
    const auto base = std::find_if(results.begin(), results.end(), [&](const result& b) { return b.layout == r.layout && b.tier == 1; });
    const double gbs = r.bytes / (r.us * 1e-6) / 1e9;
    char line[320], vs_tier1[16] = "-";
    if (base != results.end()) std::snprintf(vs_tier1, sizeof vs_tier1, "%.2fx", r.us / base->us);
    std::snprintf(line, sizeof line, "| %s | %d | %.1f | %.1f | %.1f | %.0f | %.0f%% | %.0f%% | %s |\n", r.layout.c_str(), r.tier,
                  r.experts, r.us, r.bytes / (copy_gbs * 1e3), gbs, 100.0 * gbs / copy_gbs, 100.0 * gbs / read_gbs, vs_tier1);
    table += line;
    std::snprintf(line, sizeof line, "%s\t%d\t%.2f\t%.3f\t%.0f\t%.0f\t%.0f\n", r.layout.c_str(), r.tier, r.experts, r.us, r.bytes,
                  copy_gbs, read_gbs);
    rows_tsv += line;
  }
  std::printf("\n%s", table.c_str());
  if (!markdown.empty())
    if (FILE* f = std::fopen(markdown.c_str(), "w")) {
      std::fprintf(f, "device %s, copy bandwidth %.0f GB/s, streaming read %.0f GB/s, %d steps per batch, median of 3\n\n%s",
                   dev.name.c_str(), copy_gbs, read_gbs, iters, table.c_str());
      std::fclose(f);
    }
  if (!tsv.empty())
    if (FILE* f = std::fopen(tsv.c_str(), "w")) {
      std::fputs(rows_tsv.c_str(), f);
      std::fclose(f);
    }
  return same_bits ? 0 : 1;
}
