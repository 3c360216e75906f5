// The streamed moe passes' static choices (include/ordo/ops/moe/streaming.hpp): DS4's layouts run
// streamed in ls32 — a layout that silently fell back to the generic passes would keep its bits
// and lose two thirds of its speed, as the q2 layout did in session 18's first build when the
// chunk-decoder detection stopped matching — and the pass table when a routed unit's passes take
// fewer pairs than the tier (config::routed_pairs): the shared expert keeps one pass of every row,
// a routed unit takes ceil(pairs / PR) passes; and the preset's rule for PR, shapes and tables.
#include "ordo/ops/moe/streaming.hpp"

#include <gtest/gtest.h>

#include <cstdint>
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
  // the rule (sessions 18-20): chunk layouts 1; packed layouts (MXFP4 beside Q8_0) 1 at 3, 2 at
  // 5-6 and 16, 4 at 7-8, else the tier; other layouts the tier
  EXPECT_EQ((streaming::config<plain, q2_layout, 1>::routed_pairs), 1);
  EXPECT_EQ((streaming::config<plain, mxfp4_layout, 2>::routed_pairs), 2);
  EXPECT_EQ((streaming::config<plain, mxfp4_layout, 3>::routed_pairs), 1);
  EXPECT_EQ((streaming::config<plain, q2_layout, 8>::routed_pairs), 1);
  EXPECT_EQ((streaming::config<plain, mxfp4_layout, 4>::routed_pairs), 4);
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
  EXPECT_EQ((streaming::config<routed_pairs_policy<0>, mxfp4_layout, 4>::routed_pairs), 4);
}

TEST(moe_streaming, preset_shapes_and_tables) {
  using plain = ordo::tune::defaults::qmv::policy;
  // with passes of one pair the q2 layout keeps the narrow shape at every tier (session 19); the
  // q8_0 layout takes the wide shape from 8 rows, the mxfp4 layout narrow16 at 3-8
  EXPECT_FALSE((streaming::config<plain, q2_layout, 7>::wide));
  EXPECT_FALSE((streaming::config<plain, q2_layout, 16>::wide));
  EXPECT_EQ((streaming::config<plain, q2_layout, 16>::warps), 8);
  EXPECT_TRUE((streaming::config<plain, q8_0_layout, 8>::wide));
  EXPECT_FALSE((streaming::config<plain, q8_0_layout, 7>::wide));
  EXPECT_TRUE((streaming::config<plain, mxfp4_layout, 5>::narrow16));
  // the IQ2_XXS grid is copied to shared memory by default
  EXPECT_EQ((streaming::config<plain, q2_layout, 1>::iq2_tables), 1);
}

}  // namespace
