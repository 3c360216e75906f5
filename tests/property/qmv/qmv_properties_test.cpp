// Properties P1–P5 of DESIGN §7 over every qmv spec in the registry, on the CPU executor, plus the
// mutation check that shows P1 has teeth. Each spec gets its own rapidcheck run (RC_PARAMS from
// the test preset sets the case count); a failure prints the spec and rapidcheck's seed.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include "qmv_properties.hpp"

namespace {

using ordo::registry::qmv_entry;
using ordo::registry::qmv_table;
using namespace ordo::test;

TEST(QmvProperties, P1RowOrderEquivalence) {
  check_every_spec("P1", [](const qmv_entry& e) { p1_row_order_equivalence(cpu_backend(), e); });
}

TEST(QmvProperties, P2EqualsHostReplay) {
  check_every_spec("P2", [](const qmv_entry& e) { p2_equals_host_replay(cpu_backend(), e); });
}

TEST(QmvProperties, P3PermutationAndSlotInvariance) {
  check_every_spec("P3", [](const qmv_entry& e) { p3_permutation_invariance(cpu_backend(), e); });
}

TEST(QmvProperties, P4TailsAndPaddingNeverLeak) {
  check_every_spec("P4", [](const qmv_entry& e) { p4_tails_and_padding(cpu_backend(), e); });
}

// P5: the orders are not interchangeable. For each format that ships two orders, over many random
// cases, a visible fraction of outputs differ in bits between them; otherwise P1–P4 could pass
// on data where every order looks the same.
TEST(QmvProperties, P5DifferentOrderChangesBits) {
  int formats_checked = 0;
  for (const auto& e : qmv_table) {
    if (e.tier != 1 || e.order != ordo::order::lane_strided::name) continue;
    const qmv_entry* other = nullptr;
    for (const auto& o : qmv_table)
      if (o.format == e.format && o.tier == 1 && o.order != e.order) other = &o;
    if (!other) continue;
    ++formats_checked;
    int differing = 0, total = 0;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      const auto c = make_case(e.format, 16, 128, 1, seed);
      const auto a = run_qmv(cpu_backend(), e, c, {0});
      const auto b = run_qmv(cpu_backend(), *other, c, {0});
      for (int j = 0; j < c.n_out; ++j, ++total) differing += a.rows[0][std::size_t(j)] != b.rows[0][std::size_t(j)];
    }
    const double fraction = double(differing) / total;
    std::printf("P5 %.*s: %s vs %s differ in %d of %d outputs (%.0f%%)\n", int(e.format.size()), e.format.data(),
                std::string(e.order).c_str(), std::string(other->order).c_str(), differing, total, 100 * fraction);
    EXPECT_GE(fraction, 0.25) << e.format;
  }
  EXPECT_GE(formats_checked, 1) << "no format ships two orders: P5 would be vacuous";
}

// Mutation check: a qmv whose second row accumulates in a different order (as a K-row kernel
// that unrolled or reassociated one row would) must be caught by the P1 check above.
TEST(QmvProperties, MutationBreakingOneRowIsCaughtByP1) {
  const auto& good = ordo::registry::find_qmv("q8_0", 4, "ls32");
  const auto& other_order = ordo::registry::find_qmv("q8_0", 1, "lb32");
  qmv_backend mutant = cpu_backend();
  mutant.qmv = [&](const qmv_entry& e, const ordo::ops::qmv::problem& p) {
    e.run_cpu(p);
    if (e.tier > 1 && p.rows > 1) {  // recompute row 1 alone with another order: one row's accumulate changed
      auto q = p;
      q.acts += p.act_row_bytes;
      q.out += p.out_stride;
      q.rows = 1;
      other_order.run_cpu(q);
    }
  };
  int caught = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const auto c = make_case("q8_0", 8, 128, 4, seed);
    EXPECT_TRUE(row_order_equivalent(cpu_backend(), good, c, {0, 1, 2, 3}, {}));
    caught += !row_order_equivalent(mutant, good, c, {0, 1, 2, 3}, {});
  }
  EXPECT_EQ(caught, 10) << "P1 missed a broken row";
}

// The real DS4 shapes at full size where the CPU executor is fast enough: tier 8 against tier 1 on
// every row, and against the host replay (P1 + P2), for the bench's four matrices.
struct ds4_shape {
  const char* format;
  int n_out, k;
};
class QmvDs4Shapes : public ::testing::TestWithParam<ds4_shape> {};

TEST_P(QmvDs4Shapes, Tier8EqualsTier1AndReplay) {
  const auto s = GetParam();
  const auto c = make_case(s.format, s.n_out, s.k / dot_elems_of(s.format), 8, 42);
  const auto& t8 = ordo::registry::find_qmv(s.format, 8, "ls32");
  const auto many = run_qmv(cpu_backend(), t8, c, {0, 1, 2, 3, 4, 5, 6, 7});
  ASSERT_TRUE(many.padding_intact);
  for (int r = 0; r < 8; ++r) {
    const auto alone = run_qmv(cpu_backend(), one_row_twin(t8), c, {r});
    EXPECT_TRUE(same_bits(many.rows[std::size_t(r)], alone.rows[0])) << "row " << r;
  }
  EXPECT_TRUE(same_bits(many.rows[0], replay_row(t8, c, 0)));
}

INSTANTIATE_TEST_SUITE_P(Ds4, QmvDs4Shapes,
                         ::testing::Values(ds4_shape{"mxfp4", 2048, 4096},   // routed gate/up
                                           ds4_shape{"mxfp4", 4096, 2048},   // routed down
                                           ds4_shape{"q8_0", 32768, 1024},   // attention q_b
                                           ds4_shape{"q8_0", 8192, 512},     // compressed rows
                                           ds4_shape{"q4_k", 2048, 4096}, ds4_shape{"iq2_xxs", 2048, 4096},
                                           ds4_shape{"q2_k", 4096, 2048}));

}  // namespace
