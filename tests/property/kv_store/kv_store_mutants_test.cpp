// Kept mutation checks of kv_store, each put into a copy of the real registry entry: the block
// amax (the signed max instead of the max of |x|), the FP8 part's extent (the RoPE dims FP8'd as
// well), the tie rule (F16 ties away from zero) — each caught by P2 — and the slot rule (row i
// written one slot late), caught by P4. kv_store has no Order axis (a max and element-wise
// roundings), so P5 has nothing to check. And E2: a "device" result one bit off the CPU
// executor's fails the E2 driver (host_as_device.hpp), so a GPU one bit off cannot pass gpu_props.
#include <cmath>
#include <cstdio>

#include "gtest_family.hpp"
#include "host_as_device.hpp"

namespace {

using namespace ordo;
using namespace ordo::test;
namespace ks = ops::kv_store;
using kv_entry = registry::entry<ks::op>;
using H = harness<ks::op>;
using ks::problem;

const kv_entry& real(const char* name) { return registry::find<ks::op>(name); }

/// The real op with one piece replaced: Value(p, i, e) gives the F16 bits of dim e of row i.
template <std::uint16_t (*Value)(const problem&, int, int)>
void with_value(const problem& p) {
  for (int i = 0; i < p.rows; ++i)
    for (int e = 0; e < p.head_dim; ++e) ks::slot_of(p, i)[e] = Value(p, i, e);
}

/// The signed max instead of the max of |x| (MUTATION): a block whose largest magnitude is
/// negative gets a scale too small and saturates.
std::uint16_t signed_amax(const problem& p, int i, int e) {
  const float* x = ks::row_of(p, i);
  if (e >= p.n_rope_free) return numeric::f32_to_f16(x[e]);
  const int b0 = e - e % 64, b1 = std::min(b0 + 64, p.n_rope_free);
  float amax = ks::amax_floor;
  for (int k = b0; k < b1; ++k) amax = x[k] > amax ? x[k] : amax;
  return numeric::f32_to_f16(ks::fp8_roundtrip(x[e], ks::block_scale(amax)));
}

/// The RoPE dims FP8'd as well: n_rope_free taken as head_dim (MUTATION).
std::uint16_t rope_dims_quantized(const problem& p, int i, int e) {
  problem q = p;
  q.n_rope_free = p.head_dim;
  return ks::stored(q, i, e);
}

/// F16 rounding with ties away from zero (MUTATION): on an exact tie the neighbour away from 0.
std::uint16_t f16_ties_away(const problem& p, int i, int e) {
  const std::uint16_t rne = ks::stored(p, i, e);
  const float v = e < p.n_rope_free ? numeric::f16_to_f32(rne) : ks::row_of(p, i)[e];
  const std::uint16_t up = std::uint16_t(rne + 1);
  const double mid = (double(numeric::f16_to_f32(rne)) + double(numeric::f16_to_f32(up))) / 2;
  return std::fabs(double(v)) == std::fabs(mid) && (rne & 1u) == 0 ? up : rne;
}

/// Row i written into the slot of position first + i + 1 (MUTATION).
void wrong_slot(const problem& p) {
  problem q = p;
  q.first_position = p.first_position + 1;
  real("kv_store.r4").run_cpu(q);
}

/// The CPU executor, then the lowest bit of row 0's first stored value flipped: a "device" one bit off.
void cpu_with_one_bit_flipped(const problem& p, gpu::stream_t) {
  real("kv_store.r4").run_cpu(p);
  ks::slot_of(p, 0)[0] ^= 1u;
}

kv_entry mutant_of(void (*run)(const problem&)) {
  kv_entry e = real("kv_store.r4");
  e.run_cpu = run;
  return e;
}

/// A DS4-shaped 4-row case of `seed`, the pass starting at position 37·seed.
H::data ds4_case(std::uint64_t seed) {
  auto d = H::make(512, 448, 4, seed);
  d.first_position = std::int64_t(seed) * 37;
  return d;
}

bool equals_replay(const kv_entry& e, const H::data& d) {
  const auto got = H::run(cpu_backend(), e, d, {0, 1, 2, 3}, H::tight_layout());
  for (std::size_t s = 0; s < 4; ++s)
    if (!same_bits(got.rows[s], H::replay(e, d, int(s)))) return false;
  return true;
}

/// How many of 30 DS4-shaped 4-row cases P2 flags on `bad` (each case first passes on the real spec),
/// after the default driver run has reported the mutant through P2.
int p2_catches(const kv_entry& bad) {
  const auto r = check_spec(cpu_backend(), bad, mutant_params(), property_set::cpu);
  std::printf("mutant %.300s\n", r.line().c_str());
  EXPECT_EQ(r.status_of("P2"), outcome::fail);
  int caught = 0;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    const auto d = ds4_case(seed);
    EXPECT_TRUE(equals_replay(real("kv_store.r4"), d));
    caught += !equals_replay(bad, d);
  }
  return caught;
}

TEST(KvStoreMutants, SignedAmaxIsCaughtByP2) {
  const int caught = p2_catches(mutant_of(&with_value<&signed_amax>));
  std::printf("mutation kv_store amax: P2 caught %d of 30\n", caught);
  EXPECT_GE(caught, 25);
}

TEST(KvStoreMutants, RopeDimsQuantizedIsCaughtByP2) {
  const int caught = p2_catches(mutant_of(&with_value<&rope_dims_quantized>));
  std::printf("mutation kv_store rope dims: P2 caught %d of 30\n", caught);
  EXPECT_EQ(caught, 30);
}

TEST(KvStoreMutants, F16TiesAwayIsCaughtByP2) {
  const int caught = p2_catches(mutant_of(&with_value<&f16_ties_away>));
  std::printf("mutation kv_store ties: P2 caught %d of 30\n", caught);
  EXPECT_GE(caught, 10);
}

TEST(KvStoreMutants, WrongSlotIsCaughtByP4) {
  const auto bad = mutant_of(&wrong_slot);
  const auto r = check_spec(cpu_backend(), bad, mutant_params(), property_set::cpu);
  std::printf("mutant %.300s\n", r.line().c_str());
  EXPECT_EQ(r.status_of("P4"), outcome::fail);
  int caught = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const auto d = H::make(512, 448, 4, seed);
    EXPECT_TRUE(H::run(cpu_backend(), real("kv_store.r4"), d, {0, 1, 2, 3}, H::tight_layout()).padding_intact);
    caught += !H::run(cpu_backend(), bad, d, {0, 1, 2, 3}, H::tight_layout()).padding_intact;
  }
  EXPECT_EQ(caught, 10);
}

TEST(KvStoreMutants, OneFlippedOutputBitIsCaughtByE2) {
  auto bad = real("kv_store.r4");
  bad.launch_gpu = &cpu_with_one_bit_flipped;
  EXPECT_EQ(drivers<ks::op>::e2(host_as_device(), bad, mutant_params()).status, outcome::fail);
  auto same = real("kv_store.r4");
  same.launch_gpu = [](const problem& p, gpu::stream_t) { real("kv_store.r4").run_cpu(p); };
  EXPECT_EQ(drivers<ks::op>::e2(host_as_device(), same, mutant_params()).status, outcome::pass);
}

TEST(KvStoreMutants, UnmutatedControlPasses) {
  EXPECT_TRUE(check_spec(cpu_backend(), real("kv_store.r4"), mutant_params(), property_set::cpu).passed());
}

}  // namespace
