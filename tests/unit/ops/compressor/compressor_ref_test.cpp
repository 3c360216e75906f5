// compressor against the double-precision reference (ordo::ref::compressor_step, then
// ordo::ref::fp8_kv_roundtrip on the first 448 dims) over whole sequences at DS4 dims: d = 512 with
// 448 FP8 dims + 64 RoPE dims; ratio 4 (W = 1024, overlapping windows, 16 emissions) and ratio 128
// (W = 512, 2 emissions); and the indexer emission (then ordo::ref::hadamard_fp4_roundtrip, as
// ref/attention.hpp makes the indexer rows) at indexer_dim 128, ratio 4 (W = 256), 4 windows. The
// ops run as the layer step runs them (passes of mixed tiers, then per-row emission:
// tests/property/compressor/sequence.hpp); the reference steps token by token with wkv = [I 0],
// wgate = [0 I] and x = [kv; score], so it pools exactly the rows the ops stored. The bound per
// element is tests/property/compressor/emit_bound.hpp's (the emit harness's oracle uses it too).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "emit_bound.hpp"
#include "ordo/ref/compressor.hpp"
#include "ordo/ref/rounding.hpp"
#include "sequence.hpp"

namespace {

using namespace ordo::test::compressor;
using ordo::ops::compressor::emitted;

void check_sequence(ratio g, int d, emitted rows, int positions, std::uint64_t seed) {
  const int r = ratio_of(g), w = coff_of(g) * d;
  int ambiguous = 0, exact = 0;  // FP4 values that differ where allowed; values compared bit for bit
  const auto c = make_case(g, d, positions, seed);
  // Passes of sizes 1..16 in a fixed rotation.
  std::vector<int> passes;
  for (int left = positions, k = 0; left > 0; ++k) {
    const int n = std::min(left, std::array{16, 3, 1, 8, 5, 2, 7}[std::size_t(k % 7)]);
    passes.push_back(n);
    left -= n;
  }
  const auto got = run_sequence(emit_spec(g, "ls32", rows), c, passes, ring_rows_for(g, slack));

  ordo::ref::compressor_state st(r, d);
  ordo::ref::compressor_weights wt;
  wt.wkv = ordo::ref::mat::Zero(w, 2 * w);
  wt.wgate = ordo::ref::mat::Zero(w, 2 * w);
  for (int j = 0; j < w; ++j) wt.wkv(j, j) = 1, wt.wgate(j, w + j) = 1;
  wt.ape.resize(r, w);
  for (int k = 0; k < r; ++k)
    for (int j = 0; j < w; ++j) wt.ape(k, j) = c.ape[std::size_t(k) * std::size_t(w) + std::size_t(j)];
  wt.norm.resize(d);
  for (int j = 0; j < d; ++j) wt.norm[j] = c.norm[std::size_t(j)];
  const ordo::ref::config cfg;
  const auto rope = ordo::ref::layer_rope(cfg, r);
  const auto score = [&](std::int64_t p, int col) {  // the reference's score: sc + ape, exact in double
    if (p < 0) return -INFINITY * 1.0;
    return double(c.sc[std::size_t(p)][std::size_t(col)]) + wt.ape(int(p % r), col);
  };
  const auto value = [&](std::int64_t p, int col) { return p < 0 ? 0.0 : double(c.kv[std::size_t(p)][std::size_t(col)]); };

  std::size_t n_emitted = 0;
  double worst = 0;
  for (int p = 0; p < positions; ++p) {
    ordo::ref::vec x(2 * w);
    for (int j = 0; j < w; ++j) x[j] = c.kv[std::size_t(p)][std::size_t(j)], x[w + j] = c.sc[std::size_t(p)][std::size_t(j)];
    const auto out = ordo::ref::compressor_step(st, wt, x, p, rope, cfg.rms_eps);
    if (!out) continue;
    ASSERT_LT(n_emitted, got.compressed.size());
    const auto& have = got.compressed[n_emitted++];
    // Per-column pooling bounds from the window's entries.
    std::vector<column_bound> cb(static_cast<std::size_t>(d));
    for (int j = 0; j < d; ++j) {
      std::vector<double> s, v;
      if (g == ratio::r4) {
        for (int q = p - 7; q <= p - 4; ++q) s.push_back(score(q, j)), v.push_back(value(q, j));
        for (int q = p - 3; q <= p; ++q) s.push_back(score(q, d + j)), v.push_back(value(q, d + j));
      } else {
        for (int q = p - 127; q <= p; ++q) s.push_back(score(q, j)), v.push_back(value(q, j));
      }
      cb[std::size_t(j)] = pool_bound(s, v);
    }
    std::vector<double> theta;
    for (int k = 0; k < n_rot / 2; ++k) theta.push_back(ordo::ref::rope_angle(rope, double(p + 1 - r), k));
    const std::vector<double> before(out->data(), out->data() + d);
    const auto check = check_emitted_row(rows, n_rot, cb, c.norm.data(), cfg.rms_eps, theta, before, have.data());
    ASSERT_EQ(check.failure, "") << ordo_name(g) << " row " << n_emitted - 1;
    worst = std::max(worst, check.worst);
    exact += check.exact;
    ambiguous += check.ambiguous;
  }
  EXPECT_EQ(n_emitted, got.compressed.size());
  EXPECT_EQ(n_emitted, std::size_t(positions / r));
  std::printf("compressor %s %s d %d: %zu rows, worst error / bound %.3g; FP4: %d values equal bit for bit, %d ambiguous differ\n",
              std::string(ordo_name(g)).c_str(), std::string(ordo_name(rows)).c_str(), d, n_emitted, worst, exact, ambiguous);
  // Nearly every indexer value is far from a decision point: the comparison is not vacuous.
  if (rows == emitted::indexer) EXPECT_GE(exact, int(0.95 * double(n_emitted) * d));
}

TEST(CompressorRef, Ratio4SequenceAgreesWithReferenceWithinDerivedBound) {
  check_sequence(ratio::r4, 512, emitted::attention, 64, 0x4444);
}
TEST(CompressorRef, Ratio128SequenceAgreesWithReferenceWithinDerivedBound) {
  check_sequence(ratio::r128, 512, emitted::attention, 256, 0x1280);
}
// The indexer compressor at DS4's indexer_dim 128: 16 positions, 4 windows (the first pools only
// its own lane B, the never-written window −1 scoring −inf).
TEST(CompressorRef, IndexerEmissionAgreesWithReferenceAtDs4Dims) {
  const ordo::ref::config cfg;
  check_sequence(ratio::r4, int(cfg.indexer_dim), emitted::indexer, 16, 0x1d4);
}

}  // namespace
