// Properties of the compressor (tests mirror include/ordo/ops/compressor), on the CPU executor:
//   chronological state: a sequence stored in passes of any tier (full tiers drawn deliberately)
//     and emitted per row in order equals the same sequence in one-row passes — every emitted row
//     and the final ring, bit for bit, across window boundaries, at every position mod 4 / mod 128;
//   store: P1 (a pass's rows equal one-row passes), P2 (copy and score + ape, replayed), P4 (stride
//     padding, other slots, rows past the live count);
//   emit: P2 (the independent replay, rings with unwritten −inf rows and random contents), P4 (NaN
//     everywhere outside the window and in the stride padding never reaches the row; the output's
//     padding holds), P5 (ls32 vs lb32 for the norm differ on a visible fraction);
//   kept mutation checks: the APE row taken from a counter advanced once per pass (the DESIGN §5
//     frontier bug, caught by the chronological property), ratio-4 lane A read from the current
//     window (caught by P2), the pooling sums in reverse entry order (caught by P2).
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <cmath>

#include "compressor_harness.hpp"
#include "family_properties.hpp"

namespace {

using namespace ordo::test;
using namespace ordo::test::compressor;
using ordo::ops::compressor::emit_entries;
using ordo::ops::compressor::find_emit;
using ordo::ops::compressor::find_store;
using ordo::ops::compressor::store_entries;

constexpr int slack = 16;  // the largest tier

/// A sequence length that crosses several windows: ratio 4 up to 60 positions, ratio 128 up to
/// 300 (two full windows and a partial one); d small on most cases to keep the run short.
/// Indexer rows take powers of two (the Hadamard) of at least the 64 RoPE dims: DS4's indexer_dim 128, and 64.
seq_case gen_sequence(ratio g, ordo::ops::compressor::emitted rows = ordo::ops::compressor::emitted::attention) {
  const int positions = g == ratio::r4 ? *rc::gen::inRange(8, 61) : *rc::gen::inRange(256, 301);
  const int d = rows == ordo::ops::compressor::emitted::indexer ? *rc::gen::element(128, 64)
                                                                : *rc::gen::element(512, 128, 96, 64);
  return make_case(g, d, positions, *rc::gen::arbitrary<std::uint64_t>());
}

/// Pass sizes covering `positions`: each the full tier on half the passes, else 1..tier.
std::vector<int> gen_passes(int tier, int positions) {
  std::vector<int> passes;
  for (int left = positions; left > 0;) {
    const int n = std::min(left, gen_rows(tier));
    passes.push_back(n);
    left -= n;
  }
  return passes;
}

bool same_sequence(const sequence_result& a, const sequence_result& b) {
  if (a.compressed.size() != b.compressed.size()) return false;
  for (std::size_t c = 0; c < a.compressed.size(); ++c)
    if (!same_bits(a.compressed[c], b.compressed[c])) return false;
  return std::memcmp(a.kv.data(), b.kv.data(), a.kv.size() * 4) == 0 &&
         std::memcmp(a.score.data(), b.score.data(), a.score.size() * 4) == 0;
}

TEST(CompressorProperties, SpaceHasEveryTierRatioAndOrder) {
  EXPECT_EQ(store_entries().size(), 9u * 2u);
  EXPECT_EQ(emit_entries().size(), 5u);
  EXPECT_EQ(store_entries().front().name, "compressor.store.r1.ratio4");
  EXPECT_EQ(emit_entries()[3].name, "compressor.emit.ratio128.lb32");
  EXPECT_EQ(emit_entries().back().name, "compressor.emit.ratio4.ls32.indexer");
}

// The indexer compressor's sequence (C6 store, C12 emission per row): K-row passes == one-row
// passes, every emitted indexer row and the final ring.
TEST(CompressorProperties, IndexerRowsChronologicalKRowPassesEqualOneRowPasses) {
  using ordo::ops::compressor::emitted;
  std::vector<store_entry> ratio4;
  for (const auto& e : store_entries())
    if (e.geometry == ratio::r4) ratio4.push_back(e);
  check_every_spec(ratio4, "indexer chronological", [](const store_entry& e) {
    const auto c = gen_sequence(ratio::r4, emitted::indexer);
    const auto& emit = find_emit(ratio::r4, "ls32", emitted::indexer);
    const auto rows = ring_rows_for(ratio::r4, slack);
    const auto batched = run_sequence(emit, c, gen_passes(e.tier, c.positions()), rows);
    const auto one_by_one = run_sequence(emit, c, std::vector<int>(std::size_t(c.positions()), 1), rows);
    RC_ASSERT(batched.compressed.size() == std::size_t(c.positions() / 4));
    RC_ASSERT(same_sequence(batched, one_by_one));
  });
}


TEST(CompressorProperties, ChronologicalStateKRowPassesEqualOneRowPasses) {
  check_every_spec(store_entries(), "chronological", [](const store_entry& e) {
    const auto c = gen_sequence(e.geometry);
    const auto& emit = find_emit(e.geometry, "ls32");
    const auto rows = ring_rows_for(e.geometry, slack);
    const auto batched = run_sequence(emit, c, gen_passes(e.tier, c.positions()), rows);
    const auto one_by_one = run_sequence(emit, c, std::vector<int>(std::size_t(c.positions()), 1), rows);
    RC_ASSERT(batched.compressed.size() == std::size_t(c.positions() / ratio_of(e.geometry)));
    RC_ASSERT(same_sequence(batched, one_by_one));
  });
}

/// A ring after storing positions 0..last of the case one by one (the state a window reads).
ring filled_ring(const seq_case& c, int last, std::int64_t rows, std::size_t pad = 0) {
  ring g(rows, c.width(), pad);
  for (int p = 0; p <= last; ++p) store_pass(find_store(1, c.geometry), c, g, p, 1);
  return g;
}

TEST(CompressorProperties, StoreP1P2RowsEqualOneRowPassesAndTheReplay) {
  check_every_spec(store_entries(), "store P1/P2", [](const store_entry& e) {
    const int n = gen_rows(e.tier);
    const int first = *rc::gen::inRange(0, 1000);
    auto c = make_case(e.geometry, *rc::gen::element(512, 40), first + n, *rc::gen::arbitrary<std::uint64_t>());
    const auto rows = ring_rows_for(e.geometry, slack);
    ring many(rows, c.width(), 0), alone(rows, c.width(), 0);
    store_pass(e, c, many, first, n);
    for (int i = 0; i < n; ++i) store_pass(find_store(1, c.geometry), c, alone, first + i, 1);
    RC_ASSERT(std::memcmp(many.kv.data(), alone.kv.data(), many.kv.size() * 4) == 0);
    RC_ASSERT(std::memcmp(many.score.data(), alone.score.data(), many.score.size() * 4) == 0);
    for (int i = 0; i < n; ++i) {
      const std::int64_t p = first + i;
      const auto view = many.view();
      for (int j = 0; j < c.width(); ++j) {
        const float want = c.sc[std::size_t(p)][std::size_t(j)] +
                           c.ape[std::size_t(p % ratio_of(c.geometry)) * std::size_t(c.width()) + std::size_t(j)];
        RC_ASSERT(same_bits(&many.score[view.at(p, j)], &want, 1));
        RC_ASSERT(same_bits(&many.kv[view.at(p, j)], &c.kv[std::size_t(p)][std::size_t(j)], 1));
      }
    }
  });
}

TEST(CompressorProperties, StoreP4PaddingOtherSlotsAndUnusedRowsNeverLeak) {
  check_every_spec(store_entries(), "store P4", [](const store_entry& e) {
    const int n = gen_rows(e.tier);
    const int first = *rc::gen::inRange(0, 1000);
    const auto c = make_case(e.geometry, 40, first + n, *rc::gen::arbitrary<std::uint64_t>());
    const std::size_t ring_pad = std::size_t(*rc::gen::inRange(1, 9));
    ring padded(ring_rows_for(e.geometry, slack), c.width(), ring_pad);
    const ring before = padded;
    store_pass(e, c, padded, first, n, std::size_t(*rc::gen::inRange(1, 9)));
    const auto view = padded.view();
    for (std::int64_t s = 0; s < padded.rows; ++s) {
      const std::int64_t offset = ((s - first) % padded.rows + padded.rows) % padded.rows;  // pass row of slot s
      const bool owned = offset < n;
      for (std::size_t j = owned ? std::size_t(c.width()) : 0; j < padded.stride; ++j) {
        const std::size_t at = std::size_t(s) * padded.stride + j;
        RC_ASSERT(std::memcmp(&padded.kv[at], &before.kv[at], 4) == 0);
        RC_ASSERT(std::memcmp(&padded.score[at], &before.score[at], 4) == 0);
      }
      if (owned) RC_ASSERT(!std::isnan(padded.kv[view.at(first + offset, 0)]));
    }
  });
}

/// An emission position of the case: any window end up to the last position (window 0 included).
std::int64_t gen_emit_position(const seq_case& c) {
  const int r = ratio_of(c.geometry);
  return std::int64_t(*rc::gen::inRange(1, c.positions() / r + 1)) * r - 1;
}

TEST(CompressorProperties, EmitP2EqualsIndependentReplay) {
  check_every_spec(emit_entries(), "emit P2", [](const emit_entry& e) {
    const auto c = gen_sequence(e.geometry, e.rows);
    const auto p = gen_emit_position(c);
    const auto g = filled_ring(c, int(p), ring_rows_for(e.geometry, slack));
    RC_ASSERT(same_bits(emit_at(e, c, g, p).row, replay_emit(e, c, g, p)));
  });
}

TEST(CompressorProperties, EmitP4NothingOutsideTheWindowIsRead) {
  check_every_spec(emit_entries(), "emit P4", [](const emit_entry& e) {
    const auto c = gen_sequence(e.geometry, e.rows);
    const auto p = gen_emit_position(c);
    const auto rows = ring_rows_for(e.geometry, slack);
    const auto clean = filled_ring(c, int(p), rows);
    auto poisoned = filled_ring(c, int(p), rows, std::size_t(*rc::gen::inRange(1, 9)));
    // Every ring row outside the window's positions (p − 7..p on ratio 4, p − 127..p on 128) → NaN.
    const int reach = e.geometry == ordo::ops::compressor::ratio::r4 ? 8 : 128;
    for (std::int64_t s = 0; s < rows; ++s) {
      bool inside = false;
      for (std::int64_t q = p - reach + 1; q <= p; ++q) inside |= poisoned.view().at(q, 0) == std::size_t(s) * poisoned.stride;
      if (!inside)
        for (std::size_t j = 0; j < poisoned.stride; ++j)
          poisoned.kv[std::size_t(s) * poisoned.stride + j] = poisoned.score[std::size_t(s) * poisoned.stride + j] =
              std::numeric_limits<float>::quiet_NaN();
    }
    const auto got = emit_at(e, c, poisoned, p, std::size_t(*rc::gen::inRange(1, 9)));
    RC_ASSERT(got.padding_intact);
    RC_ASSERT(same_bits(got.row, emit_at(e, c, clean, p).row));
  });
}

// P5: the norm's two orders are not interchangeable on these inputs. Measured below; asserts at
// least one emitted row in ten differs (Σx² of positive terms over 512 dims: like rmsnorm's P5).
TEST(CompressorProperties, EmitP5DifferentOrderChangesBits) {
  int differing = 0, total = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const auto c = make_case(ratio::r4, 512, 8, seed);
    const auto g = filled_ring(c, 7, ring_rows_for(ratio::r4, slack));
    differing += !same_bits(emit_at(find_emit(ratio::r4, "ls32"), c, g, 7).row, emit_at(find_emit(ratio::r4, "lb32"), c, g, 7).row);
    ++total;
  }
  std::printf("P5 compressor: ls32 vs lb32 differ on %d of %d emitted rows of 512\n", differing, total);
  EXPECT_GE(double(differing) / total, 0.10);
}

// An indexer row is the attention emission's pooled, normed, rotated row (the same phases) put
// through the indexer's Hadamard + FP4 instead of the FP8 step: FP4 values (E2M1 × a power of two
// per block of 32), and not the attention row.
TEST(CompressorProperties, IndexerRowsAreFp4BlocksOfTheSamePooledRow) {
  using ordo::ops::compressor::emitted;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const auto c = make_case(ratio::r4, 128, 16, seed);
    const auto g = filled_ring(c, 15, ring_rows_for(ratio::r4, slack));
    const auto idx = emit_at(find_emit(ratio::r4, "ls32", emitted::indexer), c, g, 15).row;
    const auto attn = emit_at(find_emit(ratio::r4, "ls32"), c, g, 15).row;
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


// Mutation check of the chronological state (DESIGN §5): a store that takes the APE row from a
// position counter advanced once per pass (every row of the pass gets the last row's bias) must
// fail the K-row-pass property whenever a pass has more than one row.
TEST(CompressorProperties, MutationCounterAdvancedAheadIsCaught) {
  const store_runner mutant = [](const store_entry& e, const store_problem& p) {
    const int r = ratio_of(e.geometry);
    const std::int64_t last = (p.first_position + p.rows - 1) % r;
    // Every bias row replaced by the one of the pass's last position.
    std::vector<float> ape(std::size_t(r) * std::size_t(p.width));
    for (int k = 0; k < r; ++k)
      std::copy_n(p.ape + last * p.width, p.width, ape.begin() + std::ptrdiff_t(k) * p.width);
    store_problem q = p;
    q.ape = ape.data();
    e.run(q);
  };
  int caught = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const auto c = make_case(ratio::r4, 64, 40, seed);
    const auto& emit = find_emit(ratio::r4, "ls32");
    const auto rows = ring_rows_for(ratio::r4, slack);
    const std::vector<int> passes{4, 3, 8, 5, 4, 16};
    const auto one_by_one = run_sequence(emit, c, std::vector<int>(40, 1), rows);
    EXPECT_TRUE(same_sequence(run_sequence(emit, c, passes, rows), one_by_one));
    caught += !same_sequence(run_sequence(emit, c, passes, rows, mutant), one_by_one);
  }
  EXPECT_EQ(caught, 10);
}

/// How many of 10 ratio-4 cases P2 flags on an emit mutant.
int emit_p2_catches(ratio g, const emit_runner& mutant) {
  int caught = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const auto c = make_case(g, 128, g == ratio::r4 ? 16 : 256, seed);
    const std::int64_t p = c.positions() - 1;
    const auto g_ring = filled_ring(c, int(p), ring_rows_for(g, slack));
    const auto& e = find_emit(g, "ls32");
    EXPECT_TRUE(same_bits(emit_at(e, c, g_ring, p).row, replay_emit(e, c, g_ring, p)));
    caught += !same_bits(emit_at(e, c, g_ring, p, 0, mutant).row, replay_emit(e, c, g_ring, p));
  }
  return caught;
}

/// Runs the real emit on a copy of p's ring in which, for every position q in [lo, hi], the first
/// `cols` floats of q's kv and score rows come from position source(q): a ring read as a mutant
/// kernel would read it.
template <class Source>
void emit_on_remapped_ring(const emit_entry& e, const emit_problem& p, std::int64_t lo, std::int64_t hi, std::size_t cols,
                           Source source) {
  const std::size_t n = std::size_t(p.ring_rows) * p.ring_stride;
  std::vector<float> kv(p.kv_ring, p.kv_ring + n), sc(p.score_ring, p.score_ring + n);
  for (std::int64_t q = lo; q <= hi; ++q) {
    const std::size_t to = std::size_t(ordo::ops::compressor::slot_of(q, p.ring_rows)) * p.ring_stride;
    const std::size_t from = std::size_t(ordo::ops::compressor::slot_of(source(q), p.ring_rows)) * p.ring_stride;
    std::copy_n(p.kv_ring + from, cols, kv.begin() + std::ptrdiff_t(to));
    std::copy_n(p.score_ring + from, cols, sc.begin() + std::ptrdiff_t(to));
  }
  emit_problem q = p;
  q.kv_ring = kv.data();
  q.score_ring = sc.data();
  e.run(q);
}

// Mutation check of the ratio-4 overlap: lane A (columns 0..d − 1) read from the current window's
// rows p − 3..p instead of the previous window's p − 7..p − 4.
TEST(CompressorProperties, MutationNoOverlapIsCaughtByP2) {
  const emit_runner mutant = [](const emit_entry& e, const emit_problem& p) {
    emit_on_remapped_ring(e, p, p.position - 7, p.position - 4, std::size_t(p.d), [](std::int64_t q) { return q + 4; });
  };
  const int caught = emit_p2_catches(ratio::r4, mutant);
  std::printf("mutation compressor overlap: P2 caught %d of 10\n", caught);
  EXPECT_EQ(caught, 10);
}

// Mutation check of the pooling order: den and num summed over the window in reverse entry order
// (the window's rows reversed).
TEST(CompressorProperties, MutationPoolingOrderIsCaughtByP2) {
  const emit_runner mutant = [](const emit_entry& e, const emit_problem& p) {
    const std::int64_t lo = p.position - ratio_of(e.geometry) + 1, hi = p.position;
    emit_on_remapped_ring(e, p, lo, hi, p.ring_stride, [&](std::int64_t q) { return lo + hi - q; });
  };
  const int caught = emit_p2_catches(ratio::r128, mutant);
  std::printf("mutation compressor pooling order: P2 caught %d of 10\n", caught);
  EXPECT_EQ(caught, 10);
}

}  // namespace
