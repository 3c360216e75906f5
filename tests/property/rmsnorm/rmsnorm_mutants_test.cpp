// Kept mutation check of rmsnorm's one reduction (Σx²): a kernel whose row 1 is reduced in
// another order — what a K-row kernel that reassociated one row would do — put into a copy of the
// real registry entry. The default driver run must report it through P1 and P2; and on DS4's
// 4096-wide rows P1 must flag exactly the cases where that order changes row 1's bits (the
// independent replay says which), and such cases must exist.
#include <cstdio>

#include "gtest_family.hpp"

namespace {

using namespace ordo;
using namespace ordo::test;
using rms_entry = registry::entry<ops::rmsnorm::op>;
using H = harness<ops::rmsnorm::op>;

constexpr const char* good_name = "rmsnorm.r4.ls32.weighted.q8_32";
constexpr const char* other_order_name = "rmsnorm.r1.lb32.weighted.q8_32";

/// The shipped r4 kernel, then row 1 again in lb32 (MUTATION).
void row1_in_other_order(const ops::rmsnorm::problem& p) {
  registry::find<ops::rmsnorm::op>(good_name).run_cpu(p);
  if (p.rows > 1) {
    auto q = p;
    q.x += p.x_stride;
    q.out += p.out_stride;
    q.q8 += p.q8_row_bytes;
    q.rows = 1;
    registry::find<ops::rmsnorm::op>(other_order_name).run_cpu(q);
  }
}

rms_entry mutant() {
  rms_entry e = registry::find<ops::rmsnorm::op>(good_name);
  e.run_cpu = &row1_in_other_order;
  return e;
}

TEST(RmsnormMutants, RowReducedInAnotherOrderIsCaughtByP1AndP2) {
  const auto r = check_spec(cpu_backend(), mutant(), mutant_params(), property_set::cpu);
  std::printf("mutant %s\n", r.line().c_str());
  EXPECT_EQ(r.status_of("P1"), outcome::fail);
  EXPECT_EQ(r.status_of("P2"), outcome::fail);
}

/// P1 for one case: every slot of a 4-row run equals the same pool row run alone at tier 1.
bool row_order_equivalent(const rms_entry& e, const H::data& d) {
  const auto& one = registry::find<ops::rmsnorm::op>("rmsnorm.r1.ls32.weighted.q8_32");
  const auto many = H::run(cpu_backend(), e, d, {0, 1, 2, 3}, H::tight_layout());
  for (int s = 0; s < 4; ++s)
    if (!same_bits(many.rows[std::size_t(s)], H::run(cpu_backend(), one, d, {s}, H::tight_layout()).rows[0])) return false;
  return true;
}

TEST(RmsnormMutants, P1FlagsExactlyTheCasesWhereTheOrderChangesBits) {
  const auto& good = registry::find<ops::rmsnorm::op>(good_name);
  const auto& other = registry::find<ops::rmsnorm::op>(other_order_name);
  const auto bad = mutant();
  int observable = 0, caught = 0;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    const auto d = H::make(1, 4096, 4, seed);
    EXPECT_TRUE(row_order_equivalent(good, d));
    const bool differs = !same_bits(H::replay(good, d, 1), H::replay(other, d, 1));
    const bool flagged = !row_order_equivalent(bad, d);
    observable += differs;
    caught += differs && flagged;
    EXPECT_EQ(flagged, differs) << "seed " << seed;
  }
  std::printf("mutation rmsnorm: row 1 in lb32 changes bits on %d of 60 cases, P1 caught %d\n", observable, caught);
  EXPECT_GE(observable, 5);
  EXPECT_EQ(caught, observable) << "P1 missed a row reduced in another order";
}

// The unmutated entry passes the same run: the failures above come from the mutation.
TEST(RmsnormMutants, UnmutatedControlPasses) {
  EXPECT_TRUE(check_spec(cpu_backend(), registry::find<ops::rmsnorm::op>(good_name), mutant_params(), property_set::cpu).passed());
}

}  // namespace
