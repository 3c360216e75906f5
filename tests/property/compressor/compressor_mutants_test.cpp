// Kept mutation checks of the compressor, one per reduction and per piece of state, each put into
// a copy of a real registry entry and run through the generic driver that must catch it, plus a
// per-case count on DS4-shaped data:
//   the pooling's entry order (den and num summed over the window's rows in reverse) — P2;
//   the norm's Σx² lane split (the lb32 kernel under the ls32 entry's name) — P2;
//   the ratio-4 overlap (lane A read from the current window instead of the previous one) — P2;
//   the state update (the APE row taken from a counter advanced once per pass, DESIGN §5's
//     frontier bug) — the chronological K-row-pass property;
//   and E2: a "device" result one bit off the CPU executor's fails the E2 driver
//   (host_as_device.hpp), for a store and an emit spec.
#include <algorithm>
#include <cstdio>

#include "gtest_family.hpp"
#include "host_as_device.hpp"
#include "ordo/ops/cpu_executor.hpp"
#include "sequence.hpp"

namespace {

using namespace ordo;
using namespace ordo::test;
using namespace ordo::test::compressor;
namespace oc = ordo::ops::compressor;
using HE = harness<oc::emit_op>;

/// Runs the real entry `e` on a copy of p's ring in which, for every position q in [lo, hi], the
/// first `cols` floats of q's kv and score rows come from position source(q): the ring read as a
/// mutant kernel would read it.
template <class Source>
void run_on_remapped_ring(const emit_entry& e, const emit_problem& p, std::int64_t lo, std::int64_t hi, std::size_t cols,
                          Source source) {
  const std::size_t n = std::size_t(p.ring_rows) * p.ring_stride;
  std::vector<float> kv(p.kv_ring, p.kv_ring + n), sc(p.score_ring, p.score_ring + n);
  for (std::int64_t q = lo; q <= hi; ++q) {
    const std::size_t to = std::size_t(oc::slot_of(q, p.ring_rows)) * p.ring_stride;
    const std::size_t from = std::size_t(oc::slot_of(source(q), p.ring_rows)) * p.ring_stride;
    std::copy_n(p.kv_ring + from, cols, kv.begin() + std::ptrdiff_t(to));
    std::copy_n(p.score_ring + from, cols, sc.begin() + std::ptrdiff_t(to));
  }
  emit_problem q = p;
  q.kv_ring = kv.data();
  q.score_ring = sc.data();
  e.run_cpu(q);
}

constexpr const char* ratio4_spec = "compressor.emit.ratio4.ls32.attn";
constexpr const char* ratio128_spec = "compressor.emit.ratio128.ls32.attn";
const emit_entry& real(const char* name) { return registry::find<oc::emit_op>(name); }

/// Pooling in reverse entry order (MUTATION): the window's rows reversed.
void pooling_reversed(const emit_problem& p) {
  const std::int64_t lo = p.position - 127, hi = p.position;
  run_on_remapped_ring(real(ratio128_spec), p, lo, hi, p.ring_stride, [&](std::int64_t q) { return lo + hi - q; });
}

/// No overlap (MUTATION): lane A (columns 0..d − 1) read from rows p − 3..p instead of p − 7..p − 4.
void no_overlap(const emit_problem& p) {
  run_on_remapped_ring(real(ratio4_spec), p, p.position - 7, p.position - 4, std::size_t(p.d),
                       [](std::int64_t q) { return q + 4; });
}

emit_entry mutant_of(const char* name, void (*run)(const emit_problem&)) {
  emit_entry e = real(name);
  e.run_cpu = run;
  return e;
}

/// The generic P2 driver must fail on `bad`; returns how many of 20 DS4-shaped emissions (tail
/// data, each passing on the real spec) P2 flags.
int p2_catches(const emit_entry& bad, const char* what) {
  const auto p2 = drivers<oc::emit_op>::p2(cpu_backend(), bad, mutant_params());
  std::printf("mutant compressor (%s): P2 %s\n", what, p2.status == outcome::fail ? "fails (caught)" : "passes (NOT caught)");
  EXPECT_EQ(p2.status, outcome::fail) << what;
  const emit_entry& good = real(std::string(bad.name.view()).c_str());
  int caught = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const auto d = HE::tail_data(good, 1, seed);
    EXPECT_TRUE(same_bits(HE::run(cpu_backend(), good, d, {0}, HE::tight_layout()).rows[0], HE::replay(good, d, 0)));
    caught += !same_bits(HE::run(cpu_backend(), bad, d, {0}, HE::tight_layout()).rows[0], HE::replay(good, d, 0));
  }
  std::printf("mutation compressor (%s): P2 caught %d of 20 DS4 rows\n", what, caught);
  return caught;
}

TEST(CompressorMutants, PoolingOrderIsCaughtByP2) {
  EXPECT_EQ(p2_catches(mutant_of(ratio128_spec, &pooling_reversed), "pooling order"), 20);
}

TEST(CompressorMutants, NormLaneSplitIsCaughtByP2) {
  const auto bad = mutant_of(ratio4_spec, &ops::run_cpu<oc::emit_kernel<ratio::r4, order::lane_blocked, emitted::attention>>);
  EXPECT_GE(p2_catches(bad, "norm lane split"), 4);
}

TEST(CompressorMutants, NoOverlapIsCaughtByP2) { EXPECT_EQ(p2_catches(mutant_of(ratio4_spec, &no_overlap), "overlap"), 20); }

// The state update (DESIGN §5): a store that takes the APE row from a position counter advanced
// once per pass (every row of the pass gets the last row's bias) must fail the K-row-pass
// property whenever a pass has more than one row.
TEST(CompressorMutants, CounterAdvancedAheadIsCaughtByTheChronologicalProperty) {
  const store_runner mutant = [](const store_entry& e, const store_problem& p) {
    const int r = ratio_of(e.info.geometry);
    const std::int64_t last = (p.first_position + p.rows - 1) % r;
    std::vector<float> ape(std::size_t(r) * std::size_t(p.width));
    for (int k = 0; k < r; ++k) std::copy_n(p.ape + last * p.width, p.width, ape.begin() + std::ptrdiff_t(k) * p.width);
    store_problem q = p;
    q.ape = ape.data();
    e.run_cpu(q);
  };
  int caught = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const auto c = make_case(ratio::r4, 64, 40, seed);
    const auto& emit = emit_spec(ratio::r4, "ls32");
    const auto rows = ring_rows_for(ratio::r4, slack);
    const std::vector<int> passes{4, 3, 8, 5, 4, 16};
    const auto one_by_one = run_sequence(emit, c, std::vector<int>(40, 1), rows);
    EXPECT_TRUE(same_sequence(run_sequence(emit, c, passes, rows), one_by_one));
    caught += !same_sequence(run_sequence(emit, c, passes, rows, mutant), one_by_one);
  }
  EXPECT_EQ(caught, 10);
}

/// The CPU executor, then the lowest bit of the first written value flipped: a "device" one bit off.
void store_with_one_bit_flipped(const store_problem& p, gpu::stream_t) {
  store_spec(4, ratio::r4).run_cpu(p);
  float* v = p.kv_ring + std::size_t(oc::slot_of(p.first_position, p.ring_rows)) * p.ring_stride;
  *v = std::bit_cast<float>(std::bit_cast<std::uint32_t>(*v) ^ 1u);
}
void emit_with_one_bit_flipped(const emit_problem& p, gpu::stream_t) {
  real(ratio4_spec).run_cpu(p);
  p.out[0] = std::bit_cast<float>(std::bit_cast<std::uint32_t>(p.out[0]) ^ 1u);
}

TEST(CompressorMutants, OneFlippedOutputBitIsCaughtByE2) {
  auto store = store_spec(4, ratio::r4);
  store.launch_gpu = &store_with_one_bit_flipped;
  EXPECT_EQ(drivers<oc::store_op>::e2(host_as_device(), store, mutant_params()).status, outcome::fail);
  store.launch_gpu = [](const store_problem& p, gpu::stream_t) { store_spec(4, ratio::r4).run_cpu(p); };
  EXPECT_EQ(drivers<oc::store_op>::e2(host_as_device(), store, mutant_params()).status, outcome::pass);
  auto emit = real(ratio4_spec);
  emit.launch_gpu = &emit_with_one_bit_flipped;
  EXPECT_EQ(drivers<oc::emit_op>::e2(host_as_device(), emit, mutant_params()).status, outcome::fail);
  emit.launch_gpu = [](const emit_problem& p, gpu::stream_t) { real(ratio4_spec).run_cpu(p); };
  EXPECT_EQ(drivers<oc::emit_op>::e2(host_as_device(), emit, mutant_params()).status, outcome::pass);
}

TEST(CompressorMutants, UnmutatedControlsPassP2) {
  for (const char* name : {ratio4_spec, ratio128_spec})
    EXPECT_EQ(drivers<oc::emit_op>::p2(cpu_backend(), real(name), mutant_params()).status, outcome::pass) << name;
}

}  // namespace
