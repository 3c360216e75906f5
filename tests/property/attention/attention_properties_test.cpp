// Properties P1–P5 of DESIGN §7 over every attention spec, on the CPU executor; the split schedule
// bit-identical to the whole one and the direct visibility to the general one; and the mutation
// checks of its reductions: one row's place in the V/den sums, the chunk combine order and the
// q·k lane split, each caught by P2.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdio>

#include "attention_harness.hpp"
#include "family_properties.hpp"

namespace {

using namespace ordo::test;
using namespace ordo::test::attention;
using ordo::ops::attention::cpu_entries;
using ordo::ops::attention::find_entry;

/// One DS4 512-wide head on a sixth of the cases (the full 64 heads × 640 rows are the reference
/// test's), odd widths otherwise; lists up to 2–5 chunks so chunk boundaries, partial last chunks
/// and empty lists all occur. Invisible entries only where the spec checks visibility.
attn_case gen_case(const cpu_entry& e, int pool) {
  const bool ds4 = *rc::gen::inRange(0, 6) == 0;
  const int head_dim = ds4 ? 512 : *rc::gen::inRange(1, 130);
  const int n_heads = ds4 ? 1 : *rc::gen::inRange(1, 5);
  const int max_list = ds4 ? 2 * e.chunk + 8 : *rc::gen::inRange(0, 5 * e.chunk);
  return make_case(n_heads, head_dim, *rc::gen::inRange(1, 300), pool, max_list, e.sees == visibility::general,
                   *rc::gen::arbitrary<std::uint64_t>());
}

bool equals_replay(const cpu_entry& e, const attn_case& c, const std::vector<int>& ids, const layout& l = {},
                   const runner& exec = run_entry) {
  const auto got = run(e, c, ids, l, exec);
  if (!got.padding_intact) return false;
  for (std::size_t s = 0; s < ids.size(); ++s)
    if (!same_bits(got.y[s], replay_row(e, c, ids[s]))) return false;
  return true;
}

TEST(AttentionProperties, SpaceHasEveryTierOrderVisibilityAndSchedule) { EXPECT_EQ(cpu_entries().size(), 9u * 2u * 2u * 2u); }

// What the lanes cannot hold, or the tier cannot take, is refused before any launch.
TEST(AttentionProperties, ValidRefusesShapesOutsideTheSpec) {
  using ordo::ops::attention::valid;
  float ws = 0;
  const std::int32_t listed = 0;
  const problem ok{nullptr, 512, nullptr, 512, 1, nullptr, 4, &listed, 4, nullptr, 1.0f, nullptr, 512, &ws, 1, 512, 2};
  EXPECT_TRUE((valid<2, schedule::whole>(ok)));
  EXPECT_TRUE((valid<2, schedule::split>(ok)));
  EXPECT_FALSE((valid<1, schedule::whole>(ok))) << "2 rows on a one-row tier";
  auto wide = ok;
  wide.head_dim = 544, wide.q_stride = wide.out_stride = wide.kv_stride = 544;
  EXPECT_FALSE((valid<2, schedule::whole>(wide))) << "head_dim past max_head_dim";
  auto short_list = ok;
  short_list.gather_stride = 3;
  EXPECT_FALSE((valid<2, schedule::whole>(short_list))) << "gather_stride < max_listed";
  auto no_workspace = ok;
  no_workspace.workspace = nullptr;
  EXPECT_TRUE((valid<2, schedule::whole>(no_workspace)));
  EXPECT_FALSE((valid<2, schedule::split>(no_workspace)));
}

TEST(AttentionProperties, P1RowOrderEquivalence) {
  check_every_spec(cpu_entries(), "P1", [](const cpu_entry& e) {
    const int n = gen_rows(e.tier);
    const auto c = gen_case(e, n);
    const auto many = run(e, c, first_rows(n));
    const auto& one = find_entry(1, e.order, e.sees, e.runs);
    for (int s = 0; s < n; ++s) RC_ASSERT(same_bits(many.y[std::size_t(s)], run(one, c, {s}).y[0]));
  });
}

TEST(AttentionProperties, P2EqualsIndependentReplay) {
  check_every_spec(cpu_entries(), "P2", [](const cpu_entry& e) {
    const int n = gen_rows(e.tier);
    RC_ASSERT(equals_replay(e, gen_case(e, n), first_rows(n)));
  });
}

TEST(AttentionProperties, P3SlotAndPermutationInvariance) {
  check_every_spec(cpu_entries(), "P3", [](const cpu_entry& e) {
    const int n = gen_rows(e.tier);
    const auto c = gen_case(e, n + 2);
    const auto slots = gen_permutation(n);
    const auto a = run(e, c, slots.first), b = run(e, c, slots.second);
    for (int s = 0; s < n; ++s) RC_ASSERT(same_bits(a.y[std::size_t(s)], b.y[slots.slot_in_second(std::size_t(s))]));
  });
}

// Padded strides, a longer max_listed (extra split chunks), NaN list tails, KV rows and workspace:
// the same bits as the dense run, and no padding written.
TEST(AttentionProperties, P4PaddingInvisibleAndUnusedRowsNeverLeak) {
  check_every_spec(cpu_entries(), "P4", [](const cpu_entry& e) {
    const int n = gen_rows(e.tier);
    const auto c = gen_case(e, n);
    const layout padded{std::size_t(*rc::gen::inRange(1, 40)), std::size_t(*rc::gen::inRange(1, 40)),
                        std::size_t(*rc::gen::inRange(1, 40)), std::size_t(*rc::gen::inRange(1, 40)),
                        *rc::gen::inRange(1, 3 * e.chunk)};
    const auto a = run(e, c, first_rows(n), padded), b = run(e, c, first_rows(n));
    RC_ASSERT(a.padding_intact);
    RC_ASSERT(b.padding_intact);
    for (int s = 0; s < n; ++s) RC_ASSERT(same_bits(a.y[std::size_t(s)], b.y[std::size_t(s)]));
  });
}

/// For every spec `keep` selects, its bits equal those of `twin_of(spec)` on the same runs
/// (`extra_chunks`: a longer max_listed, so the split grid has chunks past every list).
template <class Keep, class Twin>
void check_twin_bits(const char* property, Keep keep, Twin twin_of, bool extra_chunks) {
  std::vector<cpu_entry> kept;
  for (const auto& e : cpu_entries())
    if (keep(e)) kept.push_back(e);
  check_every_spec(kept, property, [&](const cpu_entry& e) {
    const int n = gen_rows(e.tier);
    const auto c = gen_case(e, n);  // a direct spec's case has no invisible entry
    const layout l{0, 0, 0, 0, extra_chunks ? *rc::gen::inRange(0, 2 * e.chunk) : 0};
    const auto a = run(e, c, first_rows(n), l), b = run(twin_of(e), c, first_rows(n), l);
    for (int s = 0; s < n; ++s) RC_ASSERT(same_bits(a.y[std::size_t(s)], b.y[std::size_t(s)]));
  });
}

// Split-KV is the whole schedule's arithmetic: bit-identical on every spec, with extra chunks.
TEST(AttentionProperties, SplitScheduleEqualsWholeBits) {
  check_twin_bits(
      "split==whole", [](const cpu_entry& e) { return e.runs == schedule::split; },
      [](const cpu_entry& e) -> const cpu_entry& { return find_entry(e.tier, e.order, e.sees, schedule::whole); }, true);
}

// Where every entry is visible, the direct kernels (no visibility check) give the general bits.
TEST(AttentionProperties, DirectVisibilityEqualsGeneralBits) {
  check_twin_bits(
      "direct==general", [](const cpu_entry& e) { return e.sees == visibility::direct; },
      [](const cpu_entry& e) -> const cpu_entry& { return find_entry(e.tier, e.order, visibility::general, e.runs); }, false);
}

// An invisible entry is excluded entirely: the general spec's output is the replay of the list
// with it skipped, whatever KV row its slot would have named — here a NaN row.
TEST(AttentionProperties, InvisibleEntriesAreExcluded) {
  const auto& e = find_entry(1, "kv64", visibility::general, schedule::whole);
  auto c = make_case(2, 64, 50, 1, 200, false, 11);
  c.lists[0].resize(std::max<std::size_t>(c.lists[0].size(), 150), 9);
  auto visible = c;
  c.lists[0][3] = c.lists[0][70] = -1;
  visible.lists[0].erase(visible.lists[0].begin() + 70);
  visible.lists[0].erase(visible.lists[0].begin() + 3);
  ASSERT_TRUE(equals_replay(e, c, {0}));
  const auto masked = run(e, c, {0}).y[0];
  for (float v : masked) ASSERT_FALSE(std::isnan(v));
  // A masked entry keeps its list position (chunk membership is by position, never compacted):
  // dropping the two entries instead moves every later entry's chunk and changes bits.
  EXPECT_FALSE(same_bits(masked, run(e, visible, {0}).y[0]));
}

// P5 non-vacuity: the two chunkings are different Orders — their bits differ on most long lists.
TEST(AttentionProperties, P5OrdersAreDistinguishable) {
  const auto& a = find_entry(1, "kv64", visibility::general, schedule::whole);
  const auto& b = find_entry(1, "kv32", visibility::general, schedule::whole);
  int differ = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    auto c = make_case(2, 96, 200, 1, 300, false, seed);
    c.lists[0].resize(std::max<std::size_t>(c.lists[0].size(), 100), 5);
    differ += !same_bits(run(a, c, {0}).y[0], run(b, c, {0}).y[0]);
  }
  std::printf("P5 attention: kv64 and kv32 differ on %d of 20 cases\n", differ);
  EXPECT_GE(differ, 15);
}

/// A mutant that runs the real executor on a reordered list: `reorder` changes where entries sit,
/// so the sums meet the same terms in another order. `differs` is whether the replay itself gives
/// other bits for the reordered list (the mutation is observable exactly then).
using reorder_fn = void (*)(std::vector<std::int32_t>&, int chunk);

void check_reorder_mutant(const char* what, reorder_fn reorder) {
  const auto& e = find_entry(4, "kv64", visibility::general, schedule::split);
  const runner mutant = [reorder](const cpu_entry& entry, const problem& p) {
    std::vector<std::int32_t> gather(p.gather, p.gather + std::size_t(p.rows) * p.gather_stride);
    for (int i = 0; i < p.rows; ++i) {
      std::vector<std::int32_t> list(gather.begin() + std::ptrdiff_t(std::size_t(i) * p.gather_stride),
                                     gather.begin() + std::ptrdiff_t(std::size_t(i) * p.gather_stride) + p.n_listed[i]);
      reorder(list, entry.chunk);
      std::copy(list.begin(), list.end(), gather.begin() + std::ptrdiff_t(std::size_t(i) * p.gather_stride));
    }
    problem q = p;
    q.gather = gather.data();
    entry.run(q);
  };
  int observable = 0, caught = 0;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    auto c = make_case(2, 80, 300, 4, 200, true, seed);
    // Exactly three whole chunks per list (the drawn entries, then more of the table).
    for (auto& list : c.lists) {
      const std::size_t drawn = std::min<std::size_t>(list.size(), 3 * 64);
      list.resize(3 * 64);
      for (std::size_t j = drawn; j < list.size(); ++j) list[j] = std::int32_t((j * 37 + seed) % 300);
    }
    bool differs = false;
    for (int id = 0; id < 4; ++id) {
      auto reordered = c;
      reorder(reordered.lists[std::size_t(id)], e.chunk);
      differs |= !same_bits(replay_row(e, c, id), replay_row(e, reordered, id));
    }
    EXPECT_TRUE(equals_replay(e, c, {0, 1, 2, 3}));
    const bool flagged = !equals_replay(e, c, {0, 1, 2, 3}, {}, mutant);
    observable += differs;
    caught += differs && flagged;
    EXPECT_EQ(flagged, differs) << what << " seed " << seed;
  }
  std::printf("mutation attention (%s): observable on %d of 12 cases, P2 caught %d\n", what, observable, caught);
  EXPECT_GE(observable, 10);
  EXPECT_EQ(caught, observable);
}

// One row's place in its chunk's den_c / acc_c sums: the first two visible entries swapped.
TEST(AttentionProperties, MutationOneRowOutOfOrderIsCaughtByP2) {
  check_reorder_mutant("row order", [](std::vector<std::int32_t>& list, int) {
    auto first = std::find_if(list.begin(), list.end(), [](std::int32_t e) { return e >= 0; });
    auto second = std::find_if(first + 1, list.end(), [](std::int32_t e) { return e >= 0; });
    std::iter_swap(first, second);
  });
}

// The chunk combine order: chunk 0 moved behind the others (each chunk's own sums unchanged).
// (Swapping chunks 0 and 1 alone would be invisible in acc: +0 + a0 + a1 == +0 + a1 + a0.)
TEST(AttentionProperties, MutationChunkCombineOrderIsCaughtByP2) {
  check_reorder_mutant("chunk order", [](std::vector<std::int32_t>& list, int chunk) {
    std::rotate(list.begin(), list.begin() + chunk, list.end());
  });
}

// The q·k lane split: the body under an Order whose dots are lane-blocked instead of ls32.
struct blocked_dot_order {
  static constexpr int chunk = 64;
  using dot_order = ordo::order::lane_blocked;
  static constexpr std::string_view name = "mutant";
};

TEST(AttentionProperties, MutationDotLaneSplitIsCaughtByP2) {
  const auto& e = find_entry(2, "kv64", visibility::general, schedule::whole);
  const runner mutant = [](const cpu_entry&, const problem& p) {
    ordo::ops::attention::run_whole<blocked_dot_order, visibility::general>(p);
  };
  int caught = 0;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    const auto c = make_case(2, 200, 100, 2, 150, true, seed);
    EXPECT_TRUE(equals_replay(e, c, {0, 1}));
    caught += !equals_replay(e, c, {0, 1}, {}, mutant);
  }
  std::printf("mutation attention (q.k lane split): P2 caught %d of 12\n", caught);
  EXPECT_GE(caught, 11);
}

}  // namespace
