// indexer: the generic drivers (P1–P4 + oracle; one Order is compiled, so P5 is n/a) over every
// spec on the CPU executor: scores and the selection; the hierarchical and radix selectors equal
// to the flat one on drawn runs and at DS4's top-512 over 3000 keys; exact ties (lowest id).
#include <algorithm>
#include <cstdio>

#include "gtest_family.hpp"

namespace {

using namespace ordo;
using namespace ordo::test;
using ops::indexer::selector;
using H = harness<ops::indexer::op>;
using indexer_entry = registry::entry<ops::indexer::op>;

const indexer_entry& spec(const char* name) { return registry::find<ops::indexer::op>(name); }

TEST(IndexerProperties, SpaceHasEveryTierAndSelector) {
  EXPECT_EQ(registry::table<ops::indexer::op>.size(), 9u * 3u);
  EXPECT_NO_THROW(spec("indexer.r16.ls32.hier"));
  EXPECT_NO_THROW(spec("indexer.r16.ls32.radix"));
}

TEST(IndexerProperties, EverySpecPassesTheDrivers) {
  expect_family_passes<ops::indexer::op>(cpu_backend(), property_set::cpu);
}

// The hierarchical and radix selectors are the flat selection (and the same scores) on every
// tier's drawn runs.
TEST(IndexerProperties, EverySelectorEqualsFlatOnDrawnRuns) {
  int specs = 0;
  for (const auto& e : registry::table<ops::indexer::op>) {
    if (e.info.selects == selector::flat) continue;
    const indexer_entry* flat = nullptr;
    for (const auto* twin : detail::axis_siblings(e, 2))
      if (twin->info.selects == selector::flat) flat = twin;
    ASSERT_NE(flat, nullptr) << e.name.view();
    const auto r = detail::run_property(default_params(), e.name.view(), "selector==flat", [&](int c) {
      const int n = detail::draw_rows(c, e.tier);
      const auto d = H::draw(e, n, c);
      const auto a = H::run(cpu_backend(), e, d, detail::iota(n), H::tight_layout());
      const auto b = H::run(cpu_backend(), *flat, d, detail::iota(n), H::tight_layout());
      RC_ASSERT(a.padding_intact && b.padding_intact);
      for (int s = 0; s < n; ++s) RC_ASSERT(same_bits(a.rows[std::size_t(s)], b.rows[std::size_t(s)]));
    });
    EXPECT_EQ(r.status, outcome::pass) << e.name.view() << " " << r.message;
    ++specs;
  }
  EXPECT_EQ(specs, 2 * 9);
}

// The hierarchical and radix selectors are the flat selection, on DS4's top-512 over 3000 keys
// (3 blocks).
TEST(IndexerProperties, EverySelectorEqualsFlatAtDs4TopK) {
  for (const bool ties : {false, true}) {
    auto d = H::make(4, 128, 3000, 512, 2, ties, 77 + ties);
    d.n_visible = {3000, 2100};
    const auto a = H::run(cpu_backend(), spec("indexer.r2.ls32.flat"), d, {0, 1}, H::tight_layout());
    const auto b = H::run(cpu_backend(), spec("indexer.r2.ls32.hier"), d, {0, 1}, H::tight_layout());
    const auto x = H::run(cpu_backend(), spec("indexer.r2.ls32.radix"), d, {0, 1}, H::tight_layout());
    ASSERT_TRUE(a.padding_intact && b.padding_intact && x.padding_intact);
    for (int s = 0; s < 2; ++s) {
      const auto want = H::replay_row(d, s);
      EXPECT_EQ(want.selected.size(), 512u);
      EXPECT_TRUE(same_bits(a.rows[std::size_t(s)], b.rows[std::size_t(s)])) << "ties " << ties;
      EXPECT_TRUE(same_bits(a.rows[std::size_t(s)], x.rows[std::size_t(s)])) << "ties " << ties;
      EXPECT_TRUE(same_bits(a.rows[std::size_t(s)], H::replay(spec("indexer.r2.ls32.flat"), d, s))) << "ties " << ties;
    }
  }
}

// Exact ties: every key row equal, so every score is equal and the lowest ids win.
TEST(IndexerProperties, AllEqualScoresPickTheLowestIds) {
  auto d = H::make(3, 32, 1500, 512, 1, false, 5);
  for (int r = 1; r < d.n_keys; ++r) std::copy(d.keys.begin(), d.keys.begin() + 32, d.keys.begin() + r * 32);
  d.n_visible = {1500};
  std::vector<std::int32_t> want(512);
  for (int j = 0; j < 512; ++j) want[std::size_t(j)] = j;
  for (const char* name : {"indexer.r1.ls32.flat", "indexer.r1.ls32.hier", "indexer.r1.ls32.radix"}) {
    const auto row = H::run(cpu_backend(), spec(name), d, {0}, H::tight_layout()).rows[0];
    std::vector<std::int32_t> got(512);
    std::memcpy(got.data(), row.data() + 4 * 1500, 4 * 512);
    EXPECT_EQ(got, want) << name;
  }
}

}  // namespace
