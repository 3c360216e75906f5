// The streamed moe passes' static choices (include/ordo/ops/moe/streaming.hpp): DS4's layouts run
// streamed in ls32 — a layout that silently fell back to the generic passes would keep its bits
// and lose two thirds of its speed, as the q2 layout did in session 18's first build when the
// chunk-decoder detection stopped matching — and the pass table when a routed unit's passes take
// fewer pairs than the tier (config::routed_pairs): the shared expert keeps one pass of every row,
// a routed unit takes ceil(pairs / PR) passes; the preset's rule for PR, shapes and tables; the
// MXFP4 decoder a pass picks by its pairs; when the down pass copies mid_act to shared memory; and
// its items split over two warps.
#include "ordo/ops/moe/streaming.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ordo/ops/moe/layout.hpp"
#include "ordo/tune/defaults.hpp"

namespace {

using namespace ordo::ops::moe;
namespace quant = ordo::quant;

TEST(moe_streaming, ds4_layouts_run_streamed_in_ls32) {
  EXPECT_TRUE(streaming::chunk_blocks<quant::iq2_xxs>);
  EXPECT_TRUE(streaming::chunk_blocks<quant::q2_k>);
  EXPECT_TRUE(streaming::int8_blocks<quant::mxfp4>);
  EXPECT_TRUE(streaming::int8_blocks<quant::q8_0>);
  EXPECT_TRUE((streaming::applies<q2_layout, ordo::order::lane_strided>));
  EXPECT_TRUE((streaming::applies<mxfp4_layout, ordo::order::lane_strided>));
  EXPECT_TRUE((streaming::applies<q8_0_layout, ordo::order::lane_strided>));
  EXPECT_FALSE((streaming::applies<q2_layout, ordo::order::lane_blocked>));  // ls32 only
}

/// The pass table of `rows` rows with experts ids (n_used a row) at tier R, routed passes of PR.
template <int R, int PR>
std::vector<int> pass_starts(int rows, int n_used, const std::vector<std::int32_t>& ids) {
  problem p{};
  p.expert_ids = ids.data();
  p.route_stride = std::size_t(n_used);
  p.n_expert = 16;
  p.n_used = n_used;
  p.rows = rows;
  unit_list<R> ul;
  build_units<steps, R>(p, ul);
  streaming::pass_table<R> t;
  streaming::fill_pass_table<R, PR>(p, ul, t);
  return std::vector<int>(t.first, t.first + t.units + 1);
}

TEST(moe_streaming, routed_passes_take_at_most_pr_pairs) {
  // rows {5, 7}, {5, 9}, {5, 7}: expert 5 has 3 pairs, 7 has 2, 9 has 1; the shared expert 3 rows
  const std::vector<std::int32_t> ids = {5, 7, 5, 9, 5, 7};
  EXPECT_EQ((pass_starts<4, 4>(3, 2, ids)), (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ((pass_starts<4, 2>(3, 2, ids)), (std::vector<int>{0, 1, 3, 4, 5}));
  EXPECT_EQ((pass_starts<4, 1>(3, 2, ids)), (std::vector<int>{0, 1, 4, 6, 7}));
}

template <int PR>
struct routed_pairs_policy : ordo::tune::defaults::qmv::policy {
  static constexpr int moe_routed_pass_pairs = PR;
};
TEST(moe_streaming, routed_pairs_rule_and_caps) {
  using plain = ordo::tune::defaults::qmv::policy;
  // the rule (sessions 18-21): chunk layouts 1; packed layouts (MXFP4 beside Q8_0) 1 at 3, 2 at
  // 4-6 and 16, 4 at 7-8, else the tier; other layouts the tier
  EXPECT_EQ((streaming::config<plain, q2_layout, 1>::routed_pairs), 1);
  EXPECT_EQ((streaming::config<plain, mxfp4_layout, 2>::routed_pairs), 2);
  EXPECT_EQ((streaming::config<plain, mxfp4_layout, 3>::routed_pairs), 1);
  EXPECT_EQ((streaming::config<plain, q2_layout, 8>::routed_pairs), 1);
  EXPECT_EQ((streaming::config<plain, mxfp4_layout, 4>::routed_pairs), 2);
  EXPECT_EQ((streaming::config<plain, mxfp4_layout, 7>::routed_pairs), 4);
  EXPECT_EQ((streaming::config<plain, mxfp4_layout, 5>::routed_pairs), 2);
  EXPECT_EQ((streaming::config<plain, mxfp4_layout, 6>::routed_pairs), 2);
  EXPECT_EQ((streaming::config<plain, mxfp4_layout, 8>::routed_pairs), 4);
  EXPECT_EQ((streaming::config<plain, mxfp4_layout, 16>::routed_pairs), 2);
  EXPECT_EQ((streaming::config<plain, q8_0_layout, 8>::routed_pairs), 8);
  // a policy's value, capped at the tier; 0 is the rule
  EXPECT_EQ((streaming::config<routed_pairs_policy<2>, q2_layout, 8>::routed_pairs), 2);
  EXPECT_EQ((streaming::config<routed_pairs_policy<16>, q2_layout, 8>::routed_pairs), 8);
  EXPECT_EQ((streaming::config<routed_pairs_policy<2>, mxfp4_layout, 1>::routed_pairs), 1);
  EXPECT_EQ((streaming::config<routed_pairs_policy<0>, q2_layout, 4>::routed_pairs), 1);
  EXPECT_EQ((streaming::config<routed_pairs_policy<0>, mxfp4_layout, 4>::routed_pairs), 2);
}

TEST(moe_streaming, preset_shapes_and_tables) {
  using plain = ordo::tune::defaults::qmv::policy;
  // with passes of one pair the q2 layout keeps the narrow shape up to 8 rows (session 19) and
  // takes 16 warps in one CTA an SM at 16 (chunk16, session 21); the q8_0 layout takes the wide
  // shape from 8 rows, the mxfp4 layout narrow16 at 3-8
  EXPECT_FALSE((streaming::config<plain, q2_layout, 7>::wide));
  EXPECT_FALSE((streaming::config<plain, q2_layout, 16>::wide));
  EXPECT_EQ((streaming::config<plain, q2_layout, 8>::warps), 8);
  EXPECT_EQ((streaming::config<plain, q2_layout, 8>::min_ctas), 2);
  EXPECT_EQ((streaming::config<plain, q2_layout, 16>::warps), 16);
  EXPECT_EQ((streaming::config<plain, q2_layout, 16>::down_warps), 16);
  EXPECT_EQ((streaming::config<plain, q2_layout, 16>::min_ctas), 1);
  EXPECT_EQ((streaming::config<plain, q2_layout, 16>::down_min_ctas), 1);
  EXPECT_TRUE((streaming::config<plain, q8_0_layout, 8>::wide));
  EXPECT_FALSE((streaming::config<plain, q8_0_layout, 7>::wide));
  EXPECT_TRUE((streaming::config<plain, mxfp4_layout, 5>::narrow16));
  // the IQ2_XXS grid is copied to shared memory by default; its fused decode_dot serves tiers 1-4
  EXPECT_EQ((streaming::config<plain, q2_layout, 1>::iq2_tables), 1);
  EXPECT_TRUE((streaming::config<plain, q2_layout, 1>::fused_sign_dot));
  EXPECT_TRUE((streaming::config<plain, q2_layout, 4>::fused_sign_dot));
  EXPECT_FALSE((streaming::config<plain, q2_layout, 5>::fused_sign_dot));
}

struct decoder_by_tier_policy : ordo::tune::defaults::qmv::policy {
  static constexpr bool moe_decoder_by_tier = true;
};
TEST(moe_streaming, a_pass_picks_its_mxfp4_decoder_by_its_pairs) {
  using plain = ordo::tune::defaults::qmv::policy;
  using cfg5 = streaming::config<plain, mxfp4_layout, 5>;
  // tier 5's routed passes of 2 pairs take the split-sign decoder, its shared pass of 5 the full one
  EXPECT_EQ(cfg5::decoder_rows<2>, 2);
  EXPECT_EQ(cfg5::decoder_rows<5>, 5);
  EXPECT_TRUE((std::is_same_v<ordo::ops::qmv::int8_decoder_at<quant::mxfp4, cfg5::decoder_rows<2>>,
                              ordo::ops::qmv::mxfp4_split_decoder>));
  EXPECT_TRUE((std::is_same_v<ordo::ops::qmv::int8_decoder_at<quant::mxfp4, cfg5::decoder_rows<5>>,
                              ordo::ops::qmv::mxfp4_decoder>));
  // moe_decoder_by_tier: every pass by the tier (the choice before session 21)
  EXPECT_EQ((streaming::config<decoder_by_tier_policy, mxfp4_layout, 5>::decoder_rows<2>), 5);
  EXPECT_EQ((streaming::config<decoder_by_tier_policy, mxfp4_layout, 2>::decoder_rows<1>), 2);
}

/// DS4's down problem shape at `rows` rows in layout L (mid_act at a 16-byte aligned stand-in
/// address: only its alignment is read).
template <class L>
problem ds4_down_shape(int rows, std::uintptr_t mid_act_address) {
  problem p{};
  p.rows = rows, p.n_used = 6, p.n_embd = 4096, p.n_ff = 2048, p.n_expert = 256;
  p.mid_act_row_bytes = mid_act_row_bytes<L>(p.n_ff);
  p.mid_act = reinterpret_cast<std::byte*>(mid_act_address);
  return p;
}
template <int R>
std::size_t q2_down_smem(const problem& p) {
  return streaming::down_smem<q2_layout, R, ordo::tune::defaults::qmv::policy>(p);
}

struct unsplit_policy : ordo::tune::defaults::qmv::policy {
  static constexpr int moe_down_split = 1;
};
struct one_pass_windows_policy : unsplit_policy {
  static constexpr bool moe_down_dual_units = false;
};
TEST(moe_streaming, the_q2_down_pass_takes_two_routed_passes_a_window) {
  using plain = unsplit_policy;  // the preset splits the q2 down items at 2-8 rows, and so takes no two-pass windows
  EXPECT_FALSE((streaming::config<ordo::tune::defaults::qmv::policy, q2_layout, 8>::dual_units));
  // where items are not split: chunk down formats with routed passes of one pair, at tiers 5-8
  // (session 22: faster there, slower where mid_act is copied, 1-4, and in chunk16's one CTA at 16)
  EXPECT_FALSE((streaming::config<plain, q2_layout, 4>::dual_units));
  EXPECT_TRUE((streaming::config<plain, q2_layout, 5>::dual_units));
  EXPECT_TRUE((streaming::config<plain, q2_layout, 8>::dual_units));
  EXPECT_FALSE((streaming::config<plain, q2_layout, 16>::dual_units));
  EXPECT_EQ((streaming::config<plain, q2_layout, 5>::down_slot_rows), (2 * streaming::config<plain, q2_layout, 5>::down_rows));
  // not for int8-block down formats, nor where the policy says no
  EXPECT_FALSE((streaming::config<plain, mxfp4_layout, 8>::dual_units));
  EXPECT_FALSE((streaming::config<plain, q8_0_layout, 8>::dual_units));
  EXPECT_FALSE((streaming::config<one_pass_windows_policy, q2_layout, 8>::dual_units));
  EXPECT_EQ((streaming::config<one_pass_windows_policy, q2_layout, 4>::down_slot_rows), 2);
  // the doubled ring is in the down pass's shared memory: twice the one-pass ring
  const problem p = ds4_down_shape<q2_layout>(8, 0x1000);
  EXPECT_EQ((streaming::down_smem<q2_layout, 8, plain>(p) - streaming::down_smem<q2_layout, 8, one_pass_windows_policy>(p)),
            (std::size_t(8) * 2 * 2 * streaming::row_stage_bytes_of_both<quant::q2_k, quant::q8_0>));
}

struct split_policy : ordo::tune::defaults::qmv::policy {
  static constexpr int moe_down_split = 2, moe_down_rows = 4;
};
struct split_narrow_policy : split_policy {
  static constexpr bool moe_down_narrow_stage = true;
  static constexpr int moe_down_stages = 3;
};
TEST(moe_streaming, down_items_can_be_split_over_two_warps) {
  using plain = ordo::tune::defaults::qmv::policy;
  // the preset (session 24's measurements): split items of 4 rows in the q2 layout at 2-8 rows,
  // mid_act from global memory there (its copy left one CTA an SM), and in the mxfp4 layout's one
  // CTA from 16 rows; else a warp walks its item of 2 rows alone
  EXPECT_EQ((streaming::config<plain, q2_layout, 1>::down_split), 1);
  EXPECT_EQ((streaming::config<plain, q2_layout, 1>::down_rows), 2);
  EXPECT_EQ((streaming::config<plain, q2_layout, 1>::mid_act_budget), std::size_t(64) * 1024);
  EXPECT_EQ((streaming::config<plain, q2_layout, 2>::down_split), 2);
  EXPECT_EQ((streaming::config<plain, q2_layout, 2>::mid_act_budget), std::size_t(0));
  EXPECT_EQ((streaming::config<plain, q2_layout, 8>::down_split), 2);
  EXPECT_EQ((streaming::config<plain, q2_layout, 8>::down_rows), 4);
  EXPECT_EQ((streaming::config<plain, q2_layout, 16>::down_split), 1);
  EXPECT_EQ((streaming::config<plain, q2_layout, 16>::down_rows), 2);
  EXPECT_EQ((streaming::config<plain, mxfp4_layout, 8>::down_split), 1);
  EXPECT_EQ((streaming::config<plain, mxfp4_layout, 16>::down_split), 2);
  EXPECT_EQ((streaming::config<plain, mxfp4_layout, 16>::down_rows), 4);
  EXPECT_EQ((streaming::config<plain, mxfp4_layout, 16>::mid_act_budget), std::size_t(64) * 1024);
  EXPECT_EQ((streaming::config<plain, q8_0_layout, 16>::down_split), 1);
  const problem p8 = ds4_down_shape<q2_layout>(8, 0x1000);
  EXPECT_EQ((streaming::down_walks<streaming::config<unsplit_policy, q2_layout, 8>>(p8)), 2048);
  EXPECT_EQ((streaming::down_walks<streaming::config<plain, q2_layout, 8>>(p8)), 2048);
  // split: DS4's 4096 rows in items of 4, each walked by two warps, so as many walks as items of
  // 2 rows (which two 8-warp CTAs an SM, 2112 warps, already hold); a window carries 4 rows of one
  // pass, so not two passes
  using split = streaming::config<split_policy, q2_layout, 8>;
  EXPECT_EQ(split::down_split, 2);
  EXPECT_FALSE(split::dual_units);
  EXPECT_EQ(split::down_slot_rows, 4);
  EXPECT_EQ(streaming::down_walks<split>(p8), 2048);
  problem odd = p8;
  odd.n_embd = 4100;  // a last group of 4 rows with 4096's group count + 1
  EXPECT_EQ(streaming::down_walks<split>(odd), 2 * 1025);
  // and two CTAs an SM still fit where mid_act is not copied (5-8 rows), with the Q2_K rows (2
  // stages) and with the Q8_0 window's (3 stages)
  const problem p5 = ds4_down_shape<q2_layout>(5, 0x1000);
  EXPECT_LE((streaming::down_smem<q2_layout, 5, split_policy>(p5)), std::size_t(113) * 1024);
  EXPECT_LE((streaming::down_smem<q2_layout, 5, split_narrow_policy>(p5)), std::size_t(113) * 1024);
  EXPECT_LE((streaming::down_smem<q2_layout, 8, split_policy>(p8)), std::size_t(113) * 1024);
  EXPECT_LE((streaming::down_smem<q2_layout, 8, split_narrow_policy>(p8)), std::size_t(113) * 1024);
}

/// The passes warp `half` of a split item walks (as down_kernel's cursor: from half, next(k), until end).
template <class Walk>
std::vector<int> walked_passes(Walk w, int passes) {
  std::vector<int> ks;
  for (int k = w.half; k < w.end(passes); k = w.next(k)) ks.push_back(k);
  return ks;
}
/// What is wrong with two warps' walks of `passes` passes ("" if nothing): they must take every pass
/// once, each warp at least one, in ascending order (the cursor's unit scan only moves forward),
/// the first warp with the shared pass 0.
template <class Walk>
std::string split_walks_fault(Walk w0, Walk w1, int passes) {
  const std::vector<int> a = walked_passes(w0, passes), b = walked_passes(w1, passes);
  if (a.empty() || b.empty()) return "a warp walks nothing";
  if (a.front() != 0) return "the first warp does not take the shared pass";
  const auto ascending_once = [](const std::vector<int>& v) {
    return std::is_sorted(v.begin(), v.end()) && std::adjacent_find(v.begin(), v.end()) == v.end();
  };
  if (!ascending_once(a) || !ascending_once(b)) return "a walk goes back or repeats a pass";
  std::vector<int> all = a;
  all.insert(all.end(), b.begin(), b.end());
  std::sort(all.begin(), all.end());
  std::vector<int> want(passes);
  for (int k = 0; k < passes; ++k) want[k] = k;
  return all == want ? "" : "the walks do not take every pass once";
}
template <class Walk>
std::pair<Walk, Walk> split_walks(int passes, int weight) {
  Walk w0{0}, w1{1};
  if constexpr (requires { Walk::last_of(passes, weight); }) w0.last = w1.last = Walk::last_of(passes, weight);
  return {w0, w1};
}
/// The first fault over 2..100 passes (the shared pass and 1 .. 16 · 6 routed ones) and several
/// shared-pass weights.
template <class Walk>
std::string first_split_walks_fault() {
  for (int passes = 2; passes <= 100; ++passes) {
    for (int weight : {0, 1, 2, 3, 4, 7, 50, 200}) {
      const auto [w0, w1] = split_walks<Walk>(passes, weight);
      if (std::string f = split_walks_fault(w0, w1, passes); !f.empty())
        return f + " (passes " + std::to_string(passes) + ", weight " + std::to_string(weight) + ")";
    }
  }
  return "";
}
// Kept mutants of split_walk, each one edit of the shipped walk: the check above must name them.
struct ranges_walk_skipping_a_pass : streaming::split_walk<2, true> {  // the first warp resumes one pass late
  int next(int k) const { return half == 0 && k == 0 ? last + 2 : k + 1; }
};
struct ranges_walk_overlapping : streaming::split_walk<2, true> {  // the second warp runs one pass over
  int end(int passes) const { return half == 0 ? passes : last + 2 > passes ? passes : last + 2; }
};
struct strided_walk_from_one : streaming::split_walk<2, false> {  // the second warp misses pass 1
  int next(int k) const { return k == 1 ? k + 2 * 2 : k + 2; }
};
struct ranges_last_past_the_end : streaming::split_walk<2, true> {  // last_of not clamped to the routed passes
  static int last_of(int passes, int weight) { return (passes - 1 + weight) / 2 < 1 ? 1 : (passes - 1 + weight) / 2; }
};
TEST(moe_streaming, a_split_items_warps_walk_every_pass_once) {
  using every_other = streaming::split_walk<2, false>;
  using in_ranges = streaming::split_walk<2, true>;
  EXPECT_EQ(first_split_walks_fault<every_other>(), "");
  EXPECT_EQ(first_split_walks_fault<in_ranges>(), "");
  // in ranges the second warp takes the first routed passes, as many as the first warp's routed
  // passes plus the shared pass's weight (halved, rounded down): 48 routed passes (8 rows of 6
  // distinct experts), the shared pass as 4 routed ones, 26 and 22
  EXPECT_EQ(in_ranges::last_of(49, 4), 26);
  EXPECT_EQ(walked_passes(in_ranges{0, 26}, 49).size(), 1u + 22u);
  EXPECT_EQ(walked_passes(in_ranges{1, 26}, 49).size(), 26u);
  // every other pass each by default: the first warp the shared pass and 24 routed ones
  EXPECT_EQ(walked_passes(every_other{0}, 49).size(), 25u);
  EXPECT_EQ((streaming::config<ordo::tune::defaults::qmv::policy, q2_layout, 8>::down_split_shared_weight), -1);
}
TEST(moe_streaming, the_split_walks_check_names_each_kept_mutant) {
  EXPECT_NE(first_split_walks_fault<ranges_walk_skipping_a_pass>(), "");
  EXPECT_NE(first_split_walks_fault<ranges_walk_overlapping>(), "");
  EXPECT_NE(first_split_walks_fault<strided_walk_from_one>(), "");
  EXPECT_NE(first_split_walks_fault<ranges_last_past_the_end>(), "");
}

struct narrow_stage_policy : unsplit_policy {  // the variant session 24 timed: one-warp items of 2 rows
  static constexpr bool moe_down_narrow_stage = true;
  static constexpr int moe_down_warps = 16, moe_down_min_ctas = 1;
  static constexpr std::size_t moe_mid_act_budget = 160 * 1024;
  static constexpr bool moe_down_dual_units = false;
};
TEST(moe_streaming, the_q2_down_ring_can_take_rows_of_the_q8_0_window) {
  using plain = ordo::tune::defaults::qmv::policy;
  // by default a chunk window holds 16 blocks, whichever ring (Q2_K's 1360-byte rows, IQ2_XXS's 1104)
  EXPECT_EQ((streaming::config<plain, q2_layout, 8>::down_stage_row_bytes), 1360);
  EXPECT_EQ((streaming::slot_blocks<quant::q2_k, 1360>), 16);
  EXPECT_EQ((streaming::slot_blocks<quant::iq2_xxs, streaming::row_stage_bytes_of_both<quant::iq2_xxs, quant::q8_0>>), 16);
  // moe_down_narrow_stage: Q8_0's 1104 bytes hold 12 Q2_K blocks, so DS4's 8-block rows stream and
  // a 16-block row does not
  using narrow = streaming::config<narrow_stage_policy, q2_layout, 8>;
  EXPECT_EQ(narrow::down_stage_row_bytes, 1104);
  EXPECT_EQ((streaming::windows_of<quant::q2_k, 1104>(8)), 1);
  EXPECT_EQ((streaming::windows_of<quant::q2_k, 1104>(12)), 1);
  EXPECT_EQ((streaming::windows_of<quant::q2_k, 1104>(13)), 0);
  EXPECT_EQ((streaming::windows_of<quant::q8_0, 1104>(64)), 2);
  // int8-block down formats keep theirs
  EXPECT_EQ((streaming::config<narrow_stage_policy, mxfp4_layout, 8>::down_stage_row_bytes),
            (streaming::row_stage_bytes_of_both<quant::mxfp4, quant::q8_0>));
  // so one 16-warp CTA holds its rings and all of mid_act at 8 rows within sm_90's 227 KB
  const problem p8 = ds4_down_shape<q2_layout>(8, 0x1000);
  EXPECT_TRUE(streaming::copy_mid_act<quant::q2_k>(p8, narrow::mid_act_budget));
  EXPECT_LE((streaming::down_smem<q2_layout, 8, narrow_stage_policy>(p8)), std::size_t(227) * 1024);
}

TEST(moe_streaming, the_q2_down_pass_copies_mid_act_where_it_fits) {
  using plain = ordo::tune::defaults::qmv::policy;
  constexpr std::size_t budget = streaming::config<plain, q2_layout, 1>::mid_act_budget;
  // DS4's rows: 7 slots of 2336 bytes (q8_K) a row; 64 KB holds tiers 1-4 (the budget of tier 1
  // and of any tier whose items are not split: the preset's split items at 2-8 read mid_act from
  // global memory)
  EXPECT_EQ(streaming::mid_act_copy_bytes(ds4_down_shape<q2_layout>(1, 0x1000)), 7u * 2336u);
  EXPECT_TRUE(streaming::copy_mid_act<quant::q2_k>(ds4_down_shape<q2_layout>(1, 0x1000), budget));
  EXPECT_TRUE(streaming::copy_mid_act<quant::q2_k>(ds4_down_shape<q2_layout>(4, 0x1000), budget));
  EXPECT_FALSE(streaming::copy_mid_act<quant::q2_k>(ds4_down_shape<q2_layout>(5, 0x1000), budget));
  // not where mid_act is off a 16-byte granule, nor for int8-block formats (they stage instead)
  EXPECT_FALSE(streaming::copy_mid_act<quant::q2_k>(ds4_down_shape<q2_layout>(1, 0x1004), budget));
  EXPECT_FALSE(streaming::copy_mid_act<quant::mxfp4>(ds4_down_shape<mxfp4_layout>(1, 0x1000), budget));
  // the copy is in the down pass's shared memory, which still leaves two CTAs an SM (228 KB, 1 KB
  // of it reserved a CTA, on sm_90) where the narrow shape wants them
  static_assert(streaming::config<plain, q2_layout, 4>::down_min_ctas == 2);
  const problem p1 = ds4_down_shape<q2_layout>(1, 0x1000), p4 = ds4_down_shape<q2_layout>(4, 0x1000);
  EXPECT_EQ(q2_down_smem<1>(p1) - q2_down_smem<1>(ds4_down_shape<q2_layout>(1, 0x1004)), streaming::mid_act_copy_bytes(p1));
  EXPECT_LE(q2_down_smem<1>(p1), std::size_t(113) * 1024);
  EXPECT_LE(q2_down_smem<4>(p4), std::size_t(113) * 1024);
  EXPECT_LE(q2_down_smem<5>(ds4_down_shape<q2_layout>(5, 0x1000)), std::size_t(113) * 1024);
  EXPECT_LE(q2_down_smem<8>(ds4_down_shape<q2_layout>(8, 0x1000)), std::size_t(113) * 1024);
  EXPECT_LE(q2_down_smem<16>(ds4_down_shape<q2_layout>(16, 0x1000)), std::size_t(227) * 1024);
}

/// DS4's gate_up problem shape at `rows` rows in the q2 layout (x at a stand-in address, as above).
problem ds4_q2_gate_up_shape(int rows, std::uintptr_t x_address) {
  problem p = ds4_down_shape<q2_layout>(rows, 0x1000);
  p.x_routed = reinterpret_cast<const std::byte*>(x_address);
  p.x_routed_row_bytes = act_row_bytes<quant::q8_k>(p.n_embd);
  p.x_shared = reinterpret_cast<const std::byte*>(0x8000);
  p.x_shared_row_bytes = act_row_bytes<quant::q8_32>(p.n_embd);
  return p;
}
TEST(moe_streaming, the_q2_gate_up_pass_copies_x_where_two_ctas_still_fit) {
  using plain = ordo::tune::defaults::qmv::policy;
  constexpr std::size_t budget = streaming::config<plain, q2_layout, 1>::x_copy_budget;
  // 4672 bytes of q8_K a row: tiers 1-4 are copied, 5 is not
  EXPECT_TRUE(streaming::copy_x_routed<quant::iq2_xxs>(ds4_q2_gate_up_shape(1, 0x4000), budget));
  EXPECT_TRUE(streaming::copy_x_routed<quant::iq2_xxs>(ds4_q2_gate_up_shape(4, 0x4000), budget));
  EXPECT_FALSE(streaming::copy_x_routed<quant::iq2_xxs>(ds4_q2_gate_up_shape(5, 0x4000), budget));
  EXPECT_FALSE(streaming::copy_x_routed<quant::iq2_xxs>(ds4_q2_gate_up_shape(1, 0x4008), budget));  // off a granule
  EXPECT_FALSE(streaming::copy_x_routed<quant::mxfp4>(ds4_q2_gate_up_shape(1, 0x4000), budget));    // staged instead
  // the copy is in gate_up's shared memory, which still leaves the two CTAs an SM it wants
  const problem p1 = ds4_q2_gate_up_shape(1, 0x4000), p1_uncopied = ds4_q2_gate_up_shape(1, 0x4008);
  EXPECT_EQ((streaming::gate_up_smem<q2_layout, 1, plain>(p1) - streaming::gate_up_smem<q2_layout, 1, plain>(p1_uncopied)),
            p1.x_routed_row_bytes);
  static_assert(streaming::config<plain, q2_layout, 4>::min_ctas == 2);
  EXPECT_LE((streaming::gate_up_smem<q2_layout, 4, plain>(ds4_q2_gate_up_shape(4, 0x4000))), std::size_t(113) * 1024);
  // from 5 rows no budget: the copy is not built at all
  EXPECT_EQ((streaming::config<plain, q2_layout, 5>::x_copy_budget), 0u);
  // at 16 rows one 16-warp CTA (chunk16) holds its rings and both x copies within sm_90's 227 KB
  EXPECT_LE((streaming::gate_up_smem<q2_layout, 16, plain>(ds4_q2_gate_up_shape(16, 0x4000))), std::size_t(227) * 1024);
}

}  // namespace
