// Kept mutation checks of hc, one per reduction kind, each put into a copy of the real registry
// entry: the Sinkhorn (19 iterations on one row of a pass, caught by P1; on every row, caught by
// P2), the stream sum of weighted_sum and collapse (a summed 3..0, caught by P2) and post's (b
// summed 3..0, caught by P2). hc has no Order axis, so P5 has nothing to check; these are what
// show the properties can fail. And E2: a "device" result one bit off the CPU executor's fails
// the E2 driver (host_as_device.hpp), so a GPU one bit off cannot pass gpu_props.
#include <cmath>
#include <cstdio>

#include "gtest_family.hpp"
#include "host_as_device.hpp"
#include "ordo/ops/cpu_executor.hpp"

namespace {

using namespace ordo;
using namespace ordo::test;
using hc_entry = registry::entry<ops::hc::op>;
using H = harness<ops::hc::op>;
using ops::hc::problem;
using ops::hc::sinkhorn_iters;
using ops::hc::stage;

const hc_entry& real(const char* name) { return registry::find<ops::hc::op>(name); }

/// The shipped r4 split, then row 1 again with 19 Sinkhorn iterations (MUTATION): a K-row
/// kernel that treated one row differently.
void row1_with_19_iterations(const problem& p) {
  real("hc.r4.split").run_cpu(p);
  if (p.rows < 2) return;
  auto q = p;
  q.mix += p.mix_stride;
  q.split += p.split_stride;
  q.rows = 1;
  ops::run_cpu<ops::hc::kernel<1, stage::split, sinkhorn_iters - 1>>(q);
}

/// Every row with 19 Sinkhorn iterations (MUTATION).
void all_rows_19_iterations(const problem& p) { ops::run_cpu<ops::hc::kernel<4, stage::split, sinkhorn_iters - 1>>(p); }

/// x_j = Σ_a w[a]·H[a][j] with a summed 3..0 (the mutant of weighted_sum and collapse).
void collapse_reversed(const problem& p, int i, const float* w) {
  const std::size_t n = std::size_t(p.n_embd);
  const float* h = p.h + std::size_t(i) * p.h_stride;
  for (std::size_t j = 0; j < n; ++j) {
    float acc = 0.0f;
    for (std::size_t a = 4; a-- > 0;) acc = fmaf(w[a], h[a * n + j], acc);
    p.x[std::size_t(i) * p.x_stride + j] = acc;
  }
}
void weighted_sum_reversed(const problem& p) {
  for (int i = 0; i < p.rows; ++i) collapse_reversed(p, i, p.split + std::size_t(i) * p.split_stride);
}
void collapse_sum_reversed(const problem& p) {
  for (int i = 0; i < p.rows; ++i) {
    float w[4];
    ops::hc::head_weights(p.mix + std::size_t(i) * p.mix_stride, p.scale, p.base, p.hc_eps, w);
    collapse_reversed(p, i, w);
  }
}

/// post with b summed 3..0 instead of 0..3 (MUTATION).
void post_sum_reversed(const problem& p) {
  const std::size_t n = std::size_t(p.n_embd);
  for (int i = 0; i < p.rows; ++i) {
    const float* h = p.h + std::size_t(i) * p.h_stride;
    const float* s = p.split + std::size_t(i) * p.split_stride;
    const float* f = p.f + std::size_t(i) * p.f_stride;
    float* out = p.h_new + std::size_t(i) * p.h_new_stride;
    for (std::size_t a = 0; a < 4; ++a)
      for (std::size_t j = 0; j < n; ++j) {
        float acc = 0.0f;
        for (std::size_t b = 4; b-- > 0;) acc = fmaf(s[8 + a + 4 * b], h[b * n + j], acc);
        out[a * n + j] = fmaf(s[4 + a], f[j], acc);
      }
  }
}

/// The CPU executor, then the lowest bit of row 0's first output flipped: a "device" one bit off.
void cpu_with_one_bit_flipped(const problem& p, gpu::stream_t) {
  real("hc.r4.post").run_cpu(p);
  std::uint32_t b;
  std::memcpy(&b, p.h_new, 4);
  b ^= 1u;
  std::memcpy(p.h_new, &b, 4);
}

hc_entry mutant_of(const char* name, void (*run)(const problem&)) {
  hc_entry e = real(name);
  e.run_cpu = run;
  return e;
}

std::vector<int> four() { return {0, 1, 2, 3}; }

bool equals_replay(const hc_entry& e, const H::data& d) {
  const auto got = H::run(cpu_backend(), e, d, four(), H::tight_layout());
  for (std::size_t s = 0; s < 4; ++s)
    if (!same_bits(got.rows[s], H::replay(e, d, int(s)))) return false;
  return true;
}

/// P1 for one case: every slot of a 4-row run equals the same pool row run alone at tier 1.
bool row_order_equivalent(const hc_entry& e, const H::data& d) {
  const auto& one = real("hc.r1.split");
  const auto many = H::run(cpu_backend(), e, d, four(), H::tight_layout());
  for (int s = 0; s < 4; ++s)
    if (!same_bits(many.rows[std::size_t(s)], H::run(cpu_backend(), one, d, {s}, H::tight_layout()).rows[0])) return false;
  return true;
}

/// How many of `cases` 4-row cases (width n_embd) P2 flags on `bad`; each case first checks that
/// P2 passes on the real spec `good`.
int p2_catches(const hc_entry& good, const hc_entry& bad, int n_embd, std::uint64_t cases) {
  int caught = 0;
  for (std::uint64_t seed = 1; seed <= cases; ++seed) {
    const auto d = H::make(n_embd, 4, seed);
    EXPECT_TRUE(equals_replay(good, d));
    caught += !equals_replay(bad, d);
  }
  return caught;
}

void expect_driver_reports(const hc_entry& bad, std::initializer_list<const char*> properties) {
  const auto r = check_spec(cpu_backend(), bad, mutant_params(), property_set::cpu);
  std::printf("mutant %.300s\n", r.line().c_str());
  for (const char* property : properties) EXPECT_EQ(r.status_of(property), outcome::fail) << property;
}

TEST(HcMutants, OneRowWith19IterationsIsCaughtByP1) {
  const auto bad = mutant_of("hc.r4.split", &row1_with_19_iterations);
  expect_driver_reports(bad, {"P1", "P2"});
  const auto& good = real("hc.r4.split");
  int observable = 0, caught = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const auto d = H::make(64, 4, seed);
    EXPECT_TRUE(row_order_equivalent(good, d));
    const bool differs = !same_bits(H::run(cpu_backend(), bad, d, four(), H::tight_layout()).rows[1], H::replay(good, d, 1));
    const bool flagged = !row_order_equivalent(bad, d);
    observable += differs;
    caught += differs && flagged;
    EXPECT_EQ(flagged, differs) << "seed " << seed;
  }
  std::printf("mutation hc split: row 1 with 19 Sinkhorn iterations changes bits on %d of 40 cases, P1 caught %d\n", observable,
              caught);
  EXPECT_GE(observable, 30);
  EXPECT_EQ(caught, observable);
}

TEST(HcMutants, Sinkhorn19IterationsIsCaughtByP2) {
  const auto bad = mutant_of("hc.r4.split", &all_rows_19_iterations);
  expect_driver_reports(bad, {"P2"});
  const int caught = p2_catches(real("hc.r4.split"), bad, 64, 20);
  std::printf("mutation hc sinkhorn: 19 iterations caught by P2 on %d of 20 cases\n", caught);
  EXPECT_GE(caught, 18);
}

TEST(HcMutants, StreamSumOrderIsCaughtByP2) {
  const auto weighted = mutant_of("hc.r4.weighted_sum", &weighted_sum_reversed);
  const auto collapse = mutant_of("hc.r4.collapse", &collapse_sum_reversed);
  expect_driver_reports(weighted, {"P2"});
  expect_driver_reports(collapse, {"P2"});
  const int w = p2_catches(real("hc.r4.weighted_sum"), weighted, 256, 10);
  const int c = p2_catches(real("hc.r4.collapse"), collapse, 256, 10);
  std::printf("mutation hc stream sum: a reversed caught by P2 on %d (weighted_sum), %d (collapse) of 10 cases\n", w, c);
  EXPECT_EQ(w, 10);
  EXPECT_EQ(c, 10);
}

TEST(HcMutants, PostSumOrderIsCaughtByP2) {
  const auto bad = mutant_of("hc.r4.post", &post_sum_reversed);
  expect_driver_reports(bad, {"P2"});
  const int caught = p2_catches(real("hc.r4.post"), bad, 256, 10);
  std::printf("mutation hc post: reversed stream sum caught by P2 on %d of 10 cases\n", caught);
  EXPECT_EQ(caught, 10);
}

TEST(HcMutants, OneFlippedOutputBitIsCaughtByE2) {
  auto bad = real("hc.r4.post");
  bad.launch_gpu = &cpu_with_one_bit_flipped;
  EXPECT_EQ(drivers<ops::hc::op>::e2(host_as_device(), bad, mutant_params()).status, outcome::fail);
  auto same = real("hc.r4.post");
  same.launch_gpu = [](const problem& p, gpu::stream_t) { real("hc.r4.post").run_cpu(p); };
  EXPECT_EQ(drivers<ops::hc::op>::e2(host_as_device(), same, mutant_params()).status, outcome::pass);
}

TEST(HcMutants, UnmutatedControlsPass) {
  for (const char* name : {"hc.r4.split", "hc.r4.weighted_sum", "hc.r4.collapse", "hc.r4.post"})
    EXPECT_TRUE(check_spec(cpu_backend(), real(name), mutant_params(), property_set::cpu).passed()) << name;
}

}  // namespace
