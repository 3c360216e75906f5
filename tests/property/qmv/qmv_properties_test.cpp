// Properties P1–P5 of DESIGN §7 over every qmv spec in the registry, on the CPU executor, plus the
// mutation check that shows P1 has teeth. Each spec gets its own rapidcheck run (RC_PARAMS from
// the test preset sets the case count); a failure prints the spec and rapidcheck's seed.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <numeric>

#include "qmv_harness.hpp"

namespace {

using ordo::registry::qmv_entry;
using ordo::registry::qmv_table;
using namespace ordo::test;

/// Real DS4 reduction lengths (hidden 4096, expert width 2048, q LoRA 1024, head 512) mixed with
/// random ones, in dot blocks of the format.
int gen_blocks(int dot_elems) {
  const int ds4 = *rc::gen::element(4096, 2048, 1024, 512);
  const int real = std::max(1, ds4 / dot_elems);
  return *rc::gen::oneOf(rc::gen::just(real), rc::gen::inRange(1, 97));
}

qmv_case gen_case(const qmv_entry& e, int pool) {
  const int nb = gen_blocks(dot_elems_of(e.format));
  const int n_out = *rc::gen::inRange(1, 24);
  const auto seed = *rc::gen::arbitrary<std::uint64_t>();
  return make_case(e.format, n_out, nb, pool, seed);
}

const qmv_entry& one_row_twin(const qmv_entry& e) { return ordo::registry::find_qmv(e.format, 1, e.order); }

/// P1 for one case: every slot of an n-row run equals the same pool row run alone at tier 1.
bool row_order_equivalent(const qmv_backend& be, const qmv_entry& e, const qmv_case& c, const std::vector<int>& ids,
                          const qmv_layout& layout) {
  const auto many = run_qmv(be, e, c, ids, layout);
  for (std::size_t s = 0; s < ids.size(); ++s) {
    const auto alone = run_qmv(be, one_row_twin(e), c, {ids[s]});
    if (!same_bits(many.rows[s], alone.rows[0])) return false;
  }
  return true;
}

template <class Prop>
void check_every_spec(const char* property, Prop prop) {
  for (const auto& e : qmv_table) {
    const std::string label = std::string(property) + " " + std::string(e.name.view());
    EXPECT_TRUE(rc::check(label, [&] { prop(e); })) << label;
  }
}

TEST(QmvProperties, P1RowOrderEquivalence) {
  check_every_spec("P1", [](const qmv_entry& e) {
    const int n = *rc::gen::inRange(1, e.tier + 1);
    const auto c = gen_case(e, n);
    std::vector<int> ids(static_cast<std::size_t>(n));
    std::iota(ids.begin(), ids.end(), 0);
    RC_ASSERT(row_order_equivalent(cpu_backend(), e, c, ids, {}));
  });
}

TEST(QmvProperties, P2EqualsHostReplay) {
  check_every_spec("P2", [](const qmv_entry& e) {
    const int n = *rc::gen::inRange(1, e.tier + 1);
    const auto c = gen_case(e, n);
    std::vector<int> ids(static_cast<std::size_t>(n));
    std::iota(ids.begin(), ids.end(), 0);
    const auto got = run_qmv(cpu_backend(), e, c, ids);
    for (int s = 0; s < n; ++s) RC_ASSERT(same_bits(got.rows[std::size_t(s)], replay_row(e, c, s)));
  });
}

TEST(QmvProperties, P3PermutationAndSlotInvariance) {
  check_every_spec("P3", [](const qmv_entry& e) {
    const int n = *rc::gen::inRange(1, e.tier + 1);
    const auto c = gen_case(e, n + 2);
    // n distinct pool rows (repeats allowed too: the same row in two slots), in a random order
    auto ids = *rc::gen::container<std::vector<int>>(std::size_t(n), rc::gen::inRange(0, n + 2));
    const auto a = run_qmv(cpu_backend(), e, c, ids);
    auto perm = ids;
    std::reverse(perm.begin(), perm.end());
    std::rotate(perm.begin(), perm.begin() + (*rc::gen::inRange(0, n)), perm.end());
    const auto b = run_qmv(cpu_backend(), e, c, perm);
    for (int s = 0; s < n; ++s) {
      const auto it = std::find(perm.begin(), perm.end(), ids[std::size_t(s)]);
      RC_ASSERT(same_bits(a.rows[std::size_t(s)], b.rows[std::size_t(it - perm.begin())]));
    }
  });
}

TEST(QmvProperties, P4TailsAndPaddingNeverLeak) {
  check_every_spec("P4", [](const qmv_entry& e) {
    const int n = *rc::gen::inRange(1, e.tier + 1);
    const auto c = gen_case(e, n);
    std::vector<int> ids(static_cast<std::size_t>(n));
    std::iota(ids.begin(), ids.end(), 0);
    qmv_layout padded;
    padded.act_pad_bytes = std::size_t(*rc::gen::inRange(0, 5)) * 4;  // activation blocks stay 4-byte aligned
    padded.out_pad = std::size_t(*rc::gen::inRange(0, 9));
    padded.poison_unused_rows = true;
    const auto poisoned = run_qmv(cpu_backend(), e, c, ids, padded);
    RC_ASSERT(poisoned.padding_intact);
    qmv_layout clean;
    clean.poison_unused_rows = false;
    const auto tight = run_qmv(cpu_backend(), e, c, ids, clean);
    for (int s = 0; s < n; ++s) RC_ASSERT(same_bits(poisoned.rows[std::size_t(s)], tight.rows[std::size_t(s)]));
  });
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
