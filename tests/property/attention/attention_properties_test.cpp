// attention: the generic drivers (P1–P5 + oracle, DESIGN §7) over every spec on the CPU executor;
// the split schedule bit-identical to the whole one and the direct visibility to the general one
// (with extra split chunks past every list); invisible entries excluded without compaction; the
// two chunkings distinguishable case by case.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gtest_family.hpp"

namespace {

using namespace ordo;
using namespace ordo::test;
using ops::attention::schedule;
using ops::attention::visibility;
using H = harness<ops::attention::op>;
using attention_entry = registry::entry<ops::attention::op>;

const attention_entry& spec(const char* name) { return registry::find<ops::attention::op>(name); }

TEST(AttentionProperties, SpaceHasEveryTierOrderVisibilityAndSchedule) {
  EXPECT_EQ(registry::table<ops::attention::op>.size(), 9u * 2u * 2u * 2u);
  EXPECT_NO_THROW(spec("attention.r16.kv32.direct.split"));
}

// What the lanes cannot hold, or the tier cannot take, is refused before any launch.
TEST(AttentionProperties, CanRunRefusesShapesOutsideTheSpec) {
  using ops::attention::kernel;
  using kv64 = ops::attention::kv_chunked<64>;
  float ws = 0;
  const std::int32_t listed = 0;
  const ops::attention::problem ok{nullptr, 512, nullptr, 512, 1, nullptr, 4, &listed, 4, nullptr, 1.0f, nullptr, 512, &ws, 1, 512, 2};
  EXPECT_TRUE((kernel<2, kv64, visibility::general, schedule::whole>::can_run(ok)));
  EXPECT_TRUE((kernel<2, kv64, visibility::general, schedule::split>::can_run(ok)));
  EXPECT_FALSE((kernel<1, kv64, visibility::general, schedule::whole>::can_run(ok))) << "2 rows on a one-row tier";
  auto wide = ok;
  wide.head_dim = 544, wide.q_stride = wide.out_stride = wide.kv_stride = 544;
  EXPECT_FALSE((kernel<2, kv64, visibility::general, schedule::whole>::can_run(wide))) << "head_dim past max_head_dim";
  auto short_list = ok;
  short_list.gather_stride = 3;
  EXPECT_FALSE((kernel<2, kv64, visibility::general, schedule::whole>::can_run(short_list))) << "gather_stride < max_listed";
  auto no_workspace = ok;
  no_workspace.workspace = nullptr;
  EXPECT_TRUE((kernel<2, kv64, visibility::general, schedule::whole>::can_run(no_workspace)));
  EXPECT_FALSE((kernel<2, kv64, visibility::general, schedule::split>::can_run(no_workspace)));
}

TEST(AttentionProperties, EverySpecPassesTheDrivers) {
  expect_family_passes<ops::attention::op>(cpu_backend(), property_set::cpu);
}

/// For every spec `keep` selects, its bits equal its twin's (the same axes but `twin_axis` =
/// `twin_value`) on the same drawn runs, with a longer max_listed (extra split chunks past every
/// list) where `extra_chunks`.
template <class Keep>
void check_twin_bits(const char* property, Keep keep, int twin_axis, std::string_view twin_value, bool extra_chunks) {
  int specs = 0;
  for (const auto& e : registry::table<ops::attention::op>) {
    if (!keep(e)) continue;
    const attention_entry* twin = nullptr;
    for (const auto* o : detail::axis_siblings(e, twin_axis))
      if (o->axes[std::size_t(twin_axis)].view() == twin_value) twin = o;
    ASSERT_NE(twin, nullptr) << e.name.view();
    const auto r = detail::run_property(default_params(), e.name.view(), property, [&](int c) {
      const int n = detail::draw_rows(c, e.tier);
      const auto d = H::draw(e, n, c);  // a direct spec's draw has no invisible entry
      const H::layout l{0, 0, 0, 0, extra_chunks ? detail::uniform(0, 2 * e.info.chunk) : 0};
      const auto a = H::run(cpu_backend(), e, d, detail::iota(n), l), b = H::run(cpu_backend(), *twin, d, detail::iota(n), l);
      for (int s = 0; s < n; ++s) RC_ASSERT(same_bits(a.rows[std::size_t(s)], b.rows[std::size_t(s)]));
    });
    EXPECT_EQ(r.status, outcome::pass) << e.name.view() << " " << r.message;
    ++specs;
  }
  std::printf("%s: %d specs\n", property, specs);
  EXPECT_EQ(specs, 36);
}

// Split-KV is the whole schedule's arithmetic: bit-identical on every spec, with extra chunks.
TEST(AttentionProperties, SplitScheduleEqualsWholeBits) {
  check_twin_bits("split==whole", [](const attention_entry& e) { return e.info.runs == schedule::split; }, 3, "whole", true);
}

// Where every entry is visible, the direct kernels (no visibility check) give the general bits.
TEST(AttentionProperties, DirectVisibilityEqualsGeneralBits) {
  check_twin_bits("direct==general", [](const attention_entry& e) { return e.info.sees == visibility::direct; }, 2, "general",
                  false);
}

// An invisible entry is excluded entirely: the general spec's output is the replay of the list
// with it skipped, whatever KV row its slot would have named — here a NaN row.
TEST(AttentionProperties, InvisibleEntriesAreExcluded) {
  const auto& e = spec("attention.r1.kv64.general.whole");
  auto d = H::make(2, 64, 50, 1, 200, false, 11);
  d.lists[0].resize(std::max<std::size_t>(d.lists[0].size(), 150), 9);
  auto visible = d;
  d.lists[0][3] = d.lists[0][70] = -1;
  visible.lists[0].erase(visible.lists[0].begin() + 70);
  visible.lists[0].erase(visible.lists[0].begin() + 3);
  const auto masked = H::run(cpu_backend(), e, d, {0}, H::tight_layout());
  ASSERT_TRUE(masked.padding_intact);
  ASSERT_TRUE(same_bits(masked.rows[0], H::replay(e, d, 0)));
  for (float v : H::as_floats(masked.rows[0])) ASSERT_FALSE(std::isnan(v));
  // A masked entry keeps its list position (chunk membership is by position, never compacted):
  // dropping the two entries instead moves every later entry's chunk and changes bits.
  EXPECT_FALSE(same_bits(masked.rows[0], H::run(cpu_backend(), e, visible, {0}, H::tight_layout()).rows[0]));
}

// P5 case by case: the two chunkings are different Orders — their bits differ on most long lists.
TEST(AttentionProperties, OrdersDifferOnMostLongLists) {
  const auto& a = spec("attention.r1.kv64.general.whole");
  const auto& b = spec("attention.r1.kv32.general.whole");
  int differ = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const auto d = H::tail_data(a, 1, seed);
    differ += !same_bits(H::run(cpu_backend(), a, d, {0}, H::tight_layout()).rows[0],
                         H::run(cpu_backend(), b, d, {0}, H::tight_layout()).rows[0]);
  }
  std::printf("P5 attention: kv64 and kv32 differ on %d of 20 cases\n", differ);
  EXPECT_GE(differ, 15);
}

}  // namespace
