// Kept mutation checks of sampling's argmax, put into a copy of the real registry entry: ties to
// the highest id (a ">=" scan, or a combine tree that prefers the right operand). The default
// driver run must report it through P2 and the oracle, and P2 must fail on every row with a
// planted tie. And E2: an entry whose "device" result is the CPU executor's with one token bit
// flipped fails the E2 driver (host_as_device.hpp), so a GPU one bit off cannot pass gpu_props.
// The sampler's own mutation checks (draw order, tie rule of the cuts, RNG key) are
// tests/unit/ops/sampling/sampling_mutant_test.cpp, one target per mutant macro.
#include <cmath>
#include <cstdio>

#include "gtest_family.hpp"
#include "host_as_device.hpp"

namespace {

using namespace ordo;
using namespace ordo::test;
using sampling_entry = registry::entry<ops::sampling::op>;
using H = harness<ops::sampling::op>;

/// argmax with ">=": among equal logits the last (highest) id wins (MUTATION).
void ties_to_highest_id(const ops::sampling::problem& p) {
  for (int i = 0; i < p.rows; ++i) {
    const float* z = p.logits + std::size_t(i) * p.logit_stride;
    int best = 0;
    for (int v = 1; v < p.n_vocab; ++v)
      if (!std::isnan(z[v]) && (std::isnan(z[best]) || z[v] >= z[best])) best = v;
    p.tokens[i] = best;
  }
}

/// The CPU executor, then the lowest bit of row 0's token flipped: a "device" one bit off.
void cpu_with_one_bit_flipped(const ops::sampling::problem& p, gpu::stream_t) {
  registry::find<ops::sampling::op>("sampling.r4.sample").run_cpu(p);
  p.tokens[0] ^= 1;
}

sampling_entry mutant_of(const char* name, void (*run)(const ops::sampling::problem&)) {
  sampling_entry e = registry::find<ops::sampling::op>(name);
  e.run_cpu = run;
  return e;
}

bool equals_replay(const sampling_entry& e, const H::data& d, const std::vector<int>& ids) {
  const auto got = H::run(cpu_backend(), e, d, ids, H::tight_layout());
  for (std::size_t s = 0; s < ids.size(); ++s)
    if (!same_bits(got.rows[s], H::replay(e, d, ids[s]))) return false;
  return true;
}

TEST(SamplingMutants, TiesToHighestIdIsCaughtByP2AndTheOracle) {
  const auto bad = mutant_of("sampling.r4.greedy", &ties_to_highest_id);
  const auto r = check_spec(cpu_backend(), bad, mutant_params(), property_set::cpu);
  std::printf("mutant %s\n", r.line().c_str());
  EXPECT_EQ(r.status_of("P2"), outcome::fail);
  EXPECT_EQ(r.status_of("oracle"), outcome::fail);
  const auto& good = registry::find<ops::sampling::op>("sampling.r4.greedy");
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    quant::splitmix64 rng{seed};
    H::data d{H::ds4_vocab, {}, {}, {0, 0, 0, 0}};
    for (int i = 0; i < 4; ++i) d.pool.push_back(H::make_row(d.n_vocab, H::row_kind::planted_ties, rng));
    EXPECT_TRUE(equals_replay(good, d, {0, 1, 2, 3}));
    EXPECT_FALSE(equals_replay(bad, d, {0, 1, 2, 3})) << "seed " << seed;
  }
}

TEST(SamplingMutants, OneFlippedTokenBitIsCaughtByE2) {
  auto bad = registry::find<ops::sampling::op>("sampling.r4.sample");
  bad.launch_gpu = &cpu_with_one_bit_flipped;
  const auto r = drivers<ops::sampling::op>::e2(host_as_device(), bad, mutant_params());
  std::printf("E2 with one flipped bit: %s\n", r.status == outcome::fail ? "caught" : "NOT caught");
  EXPECT_EQ(r.status, outcome::fail);
}

TEST(SamplingMutants, UnmutatedControlsPass) {
  EXPECT_TRUE(check_spec(cpu_backend(), registry::find<ops::sampling::op>("sampling.r4.greedy"), mutant_params(), property_set::cpu)
                  .passed());
  auto same = registry::find<ops::sampling::op>("sampling.r4.sample");
  same.launch_gpu = [](const ops::sampling::problem& p, gpu::stream_t) { registry::find<ops::sampling::op>("sampling.r4.sample").run_cpu(p); };
  EXPECT_EQ(drivers<ops::sampling::op>::e2(host_as_device(), same, mutant_params()).status, outcome::pass);
}

}  // namespace
