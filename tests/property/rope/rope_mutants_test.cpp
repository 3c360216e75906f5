// Kept mutation check of rope: a kernel whose row 1 rotates with two rounded products and a
// subtraction (what a kernel that lost the fmaf for one row would do), put into a copy of the real
// registry entry. The default driver run must report it through P1 and P2, and on DS4's 64 heads
// of 512 (2048 pairs, so some pair always rounds differently) P1 must flag every case.
#include <cstdio>

#include "gtest_family.hpp"

namespace {

using namespace ordo;
using namespace ordo::test;
using rope_entry = registry::entry<ops::rope::op>;
using H = harness<ops::rope::op>;

constexpr const char* good_name = "rope.r4.forward";

/// Row 1 first, unfused, from the untouched input (MUTATION); then the shipped kernel on the others.
void row1_unfused(const ops::rope::problem& p) {
  const auto& good = registry::find<ops::rope::op>(good_name);
  if (p.rows > 1) {
    float* row = p.x + p.x_stride;
    const float* t = p.cos_sin + p.table_stride;
    for (int h = 0; h < p.n_heads; ++h)
      for (int k = 0; k < p.n_rot / 2; ++k) {
        float* pair = row + std::size_t(h) * std::size_t(p.head_dim) + std::size_t(p.head_dim - p.n_rot + 2 * k);
        const float c = t[2 * k], s = t[2 * k + 1], x0 = pair[0], x1 = pair[1];
        const float x0c = x0 * c, x1s = x1 * s, x0s = x0 * s, x1c = x1 * c;
        pair[0] = x0c - x1s;
        pair[1] = x0s + x1c;
      }
  }
  auto first = p;
  first.rows = 1;
  good.run_cpu(first);
  auto rest = p;
  rest.x += 2 * p.x_stride;
  rest.cos_sin += 2 * p.table_stride;
  rest.rows = p.rows - 2;
  if (rest.rows > 0) good.run_cpu(rest);
}

rope_entry mutant() {
  rope_entry e = registry::find<ops::rope::op>(good_name);
  e.run_cpu = &row1_unfused;
  return e;
}

TEST(RopeMutants, UnfusedRowIsCaughtByP1AndP2) {
  const auto r = check_spec(cpu_backend(), mutant(), mutant_params(), property_set::cpu);
  std::printf("mutant %s\n", r.line().c_str());
  EXPECT_EQ(r.status_of("P1"), outcome::fail);
  EXPECT_EQ(r.status_of("P2"), outcome::fail);
}

bool row_order_equivalent(const rope_entry& e, const H::data& d) {
  const auto& one = registry::find<ops::rope::op>("rope.r1.forward");
  const auto many = H::run(cpu_backend(), e, d, {0, 1, 2, 3}, H::tight_layout());
  for (int s = 0; s < 4; ++s)
    if (!same_bits(many.rows[std::size_t(s)], H::run(cpu_backend(), one, d, {s}, H::tight_layout()).rows[0])) return false;
  return true;
}

TEST(RopeMutants, P1FlagsEveryDs4Case) {
  const auto bad = mutant();
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const auto d = H::make(64, 512, 64, 4, seed % 2 == 0, seed);
    EXPECT_TRUE(row_order_equivalent(registry::find<ops::rope::op>(good_name), d));
    EXPECT_FALSE(row_order_equivalent(bad, d)) << "seed " << seed;
  }
}

TEST(RopeMutants, UnmutatedControlPasses) {
  EXPECT_TRUE(check_spec(cpu_backend(), registry::find<ops::rope::op>(good_name), mutant_params(), property_set::cpu).passed());
}

}  // namespace
