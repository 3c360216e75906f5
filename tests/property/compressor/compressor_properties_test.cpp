// Properties of the compressor (tests mirror include/ordo/ops/compressor), on the CPU executor:
//   the generic drivers over every store spec (P1 P2 P4 + the exact oracle; a slot is a position,
//   so no P3; no order axis, so no P5) and every emit spec (P2 P4 P5 + the double-precision
//   oracle; a run emits several windows of one ring, a call per slot);
//   chronological state: a sequence stored in passes of any tier (full tiers drawn deliberately)
//   and emitted per row in order equals the same sequence in one-row passes — every emitted row
//   and the final ring, bit for bit, across window boundaries, at every position mod 4 / mod 128,
//   for the attention rows and the indexer rows;
//   the indexer rows are FP4 blocks of the pooled row, not the attention row.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gtest_family.hpp"
#include "sequence.hpp"

namespace {

using namespace ordo;
using namespace ordo::test;
using namespace ordo::test::compressor;
namespace oc = ordo::ops::compressor;

TEST(CompressorProperties, SpaceHasEveryTierRatioOrderAndRows) {
  EXPECT_EQ(registry::table<oc::store_op>.size(), 9u * 2u);
  EXPECT_EQ(registry::table<oc::emit_op>.size(), 5u);
  EXPECT_EQ(store_spec(16, ratio::r128).tier, 16);
  EXPECT_EQ(emit_spec(ratio::r4, "ls32", emitted::indexer).info.rows, emitted::indexer);
  EXPECT_EQ(emit_spec(ratio::r128, "lb32").name.view(), "compressor.emit.ratio128.lb32.attn");
  EXPECT_THROW(emit_spec(ratio::r128, "ls32", emitted::indexer), std::out_of_range);  // ratio-4 layers only
  EXPECT_THROW(emit_spec(ratio::r4, "lb32", emitted::indexer), std::out_of_range);    // ls32 only (D15)
}

TEST(CompressorProperties, EveryStoreSpecPassesTheDrivers) {
  expect_family_passes<oc::store_op>(cpu_backend(), property_set::cpu);
}

TEST(CompressorProperties, EveryEmitSpecPassesTheDrivers) {
  expect_family_passes<oc::emit_op>(cpu_backend(), property_set::cpu);
}

// P5 as measured (the drivers assert the harness's bar): how many DS4 rows and values ls32 and
// lb32 tell apart.
TEST(CompressorProperties, EmitOrdersDifferOnDs4Rows) {
  using H = harness<oc::emit_op>;
  for (ratio g : {ratio::r4, ratio::r128}) {
    int rows = 0, values = 0;
    const int n = 40;
    for (std::uint64_t seed = 1; seed <= std::uint64_t(n); ++seed) {
      const auto d = H::tail_data(emit_spec(g, "ls32"), 1, seed);
      const auto a = H::outputs(H::run(cpu_backend(), emit_spec(g, "ls32"), d, {0}, H::tight_layout()).rows[0]);
      const auto b = H::outputs(H::run(cpu_backend(), emit_spec(g, "lb32"), d, {0}, H::tight_layout()).rows[0]);
      int differing = 0;
      for (std::size_t j = 0; j < a.size(); ++j) differing += std::memcmp(&a[j], &b[j], 4) != 0;
      rows += differing > 0;
      values += differing;
    }
    std::printf("P5 compressor %s: ls32 vs lb32 differ on %d of %d rows, %d of %d values (%.3f)\n",
                std::string(ordo_name(g)).c_str(), rows, n, values, n * 512, double(values) / (n * 512));
    EXPECT_GE(rows, n / 10);
  }
}

/// A sequence length that crosses several windows: ratio 4 up to 60 positions, ratio 128 up to
/// 300 (two full windows and a partial one). Indexer rows take powers of two (the Hadamard) of at
/// least the 64 RoPE dims: DS4's indexer_dim 128, and 64.
seq_case gen_sequence(ratio g, emitted rows) {
  const int positions = g == ratio::r4 ? *rc::gen::inRange(8, 61) : *rc::gen::inRange(256, 301);
  const int d = rows == emitted::indexer ? *rc::gen::element(128, 64) : *rc::gen::element(512, 128, 96, 64);
  return make_case(g, d, positions, *rc::gen::arbitrary<std::uint64_t>());
}

/// Pass sizes covering `positions`: each the full tier on half the passes, else 1..tier.
std::vector<int> gen_passes(int tier, int positions) {
  std::vector<int> passes;
  for (int left = positions; left > 0;) {
    const int n = std::min(left, *rc::gen::oneOf(rc::gen::just(tier), rc::gen::inRange(1, tier + 1)));
    passes.push_back(n);
    left -= n;
  }
  return passes;
}

/// For every store spec (of ratio 4 only, for indexer rows): K-row passes == one-row passes.
void check_chronological(emitted rows) {
  for (const auto& e : registry::table<oc::store_op>) {
    if (rows == emitted::indexer && e.info.geometry != ratio::r4) continue;
    const std::string label = "chronological " + std::string(ordo_name(rows)) + " " + std::string(e.name.view());
    EXPECT_TRUE(rc::check(label, [&] {
      const auto c = gen_sequence(e.info.geometry, rows);
      const auto& emit = emit_spec(e.info.geometry, "ls32", rows);
      const auto depth = ring_rows_for(e.info.geometry, slack);
      const auto batched = run_sequence(emit, c, gen_passes(e.tier, c.positions()), depth);
      const auto one_by_one = run_sequence(emit, c, std::vector<int>(std::size_t(c.positions()), 1), depth);
      RC_ASSERT(batched.compressed.size() == std::size_t(c.positions() / ratio_of(e.info.geometry)));
      RC_ASSERT(same_sequence(batched, one_by_one));
    })) << label;
  }
}

TEST(CompressorProperties, ChronologicalStateKRowPassesEqualOneRowPasses) { check_chronological(emitted::attention); }

// The indexer compressor's sequence (C6 store, C12 emission per row).
TEST(CompressorProperties, IndexerRowsChronologicalKRowPassesEqualOneRowPasses) { check_chronological(emitted::indexer); }

/// A ring after storing positions 0..last of the case one by one (the state a window reads).
ring filled_ring(const seq_case& c, int last) {
  ring g(ring_rows_for(c.geometry, slack), c.width(), 0);
  for (int p = 0; p <= last; ++p) store_pass(store_spec(1, c.geometry), c, g, p, 1);
  return g;
}

// An indexer row is the attention emission's pooled, normed, rotated row (the same phases) put
// through the indexer's Hadamard + FP4 instead of the FP8 step: FP4 values (E2M1 × a power of two
// per block of 32), and not the attention row.
TEST(CompressorProperties, IndexerRowsAreFp4BlocksOfTheSamePooledRow) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const auto c = make_case(ratio::r4, 128, 16, seed);
    const auto g = filled_ring(c, 15);
    const auto idx = emit_at(emit_spec(ratio::r4, "ls32", emitted::indexer), c, g, 15).row;
    const auto attn = emit_at(emit_spec(ratio::r4, "ls32"), c, g, 15).row;
    EXPECT_FALSE(same_bits(idx, attn));
    for (int b0 = 0; b0 < 128; b0 += 32) {
      float amax = 0;
      for (int j = b0; j < b0 + 32; ++j) amax = std::max(amax, std::fabs(idx[std::size_t(j)]));
      ASSERT_GT(amax, 0.0f);
      const float scale = std::ldexp(1.0f, std::ilogb(amax) - 2);  // 6·scale' >= amax: the grid's finest step
      for (int j = b0; j < b0 + 32; ++j) {
        const float m = std::fabs(idx[std::size_t(j)]) / (scale / 2);  // in units of the finest step 0.5·scale_block
        EXPECT_EQ(m, std::floor(m)) << "seed " << seed << " dim " << j << ": not on an E2M1 grid";
      }
    }
  }
}

}  // namespace
