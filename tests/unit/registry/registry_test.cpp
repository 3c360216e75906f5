// The registry over every family of all_ops: each table is sorted and unique and holds the whole
// filtered space with names folded from the types; lookups that miss name the spec and the
// preset; `ordo specs` prints every entry of every family. Plus qmv's own facts.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "ordo/registry/all_ops.hpp"

namespace {

using namespace ordo;

TEST(Registry, EveryFamilySortedUniqueAndComplete) {
  registry::for_each_op([]<class Op>() {
    const auto& t = registry::table<Op>;
    EXPECT_TRUE(std::is_sorted(t.begin(), t.end(), [](const auto& a, const auto& b) { return a.name.view() < b.name.view(); }));
    std::set<std::string> names;
    for (const auto& e : t) {
      names.insert(std::string(e.name.view()));
      // the name is the op's name and the axis names joined by '.'
      std::string joined(Op::name);
      for (std::size_t i = 0; i < e.axis_count; ++i) joined += "." + std::string(e.axes[i].view());
      EXPECT_EQ(e.name.view(), joined);
      EXPECT_NE(e.run_cpu, nullptr) << e.name.view();
      EXPECT_EQ(&registry::find<Op>(e.name.view()), &e);
    }
    EXPECT_EQ(names.size(), t.size()) << Op::name;
    EXPECT_EQ(std::size_t(boost::hana::length(registry::space<Op, tune::preset>)), t.size()) << Op::name;
    EXPECT_GT(t.size(), 0u) << Op::name;
  });
}

TEST(Registry, QmvShipsTheStridedOrderAtEveryTierOfEveryFormat) {
  for (const auto& f : quant::format_table)
    for (int r : tune::preset::qmv::tiers::values)
      EXPECT_NO_THROW(registry::find_axes<ops::qmv::op>(f.name, "r" + std::to_string(r), "ls32")) << f.name << " r" << r;
}

TEST(Registry, NamesAndInfoComeFromTheTypes) {
  const auto& e = registry::find<ops::qmv::op>("qmv.mxfp4.r1.ls32");
  EXPECT_EQ(e.info.format, "mxfp4");
  EXPECT_EQ(e.info.activation, "q8_32");
  EXPECT_EQ(e.tier, 1);
  EXPECT_EQ(e.info.order, "ls32");
  EXPECT_EQ(&registry::find_axes<ops::qmv::op>("mxfp4", "r1", "ls32"), &e);
  EXPECT_EQ(registry::find_axes<ops::qmv::op>("q4_k", "r1", "ls32").info.activation, "q8_k");
  // activation block geometry (ds4-model §10.2 for q8_k: f32 d + 256 int8 + 16 int16 = 292 bytes)
  const auto& q8_32 = registry::find<ops::quantize_rows::op>("quantize_rows.q8_32");
  EXPECT_EQ(q8_32.info.block_bytes, 36);
  EXPECT_EQ(q8_32.info.block_elems, 32);
  EXPECT_EQ(q8_32.tier, 0);
  EXPECT_EQ(registry::find<ops::quantize_rows::op>("quantize_rows.q8_k").info.block_bytes, 292);
  EXPECT_EQ(registry::find<ops::quantize_rows::op>("quantize_rows.q8_k").info.block_elems, 256);
  static_assert(spec::spec<ops::qmv::op, quant::q8_0, tier::rows<16>, order::lane_blocked>::name.view() == "qmv.q8_0.r16.lb32");
}

TEST(Registry, MissingSpecFailsLoudlyWithItsName) {
  try {
    registry::find_axes<ops::qmv::op>("q4_k", "r3", "lb32");  // lane_blocked is filtered out for k-quants
    FAIL() << "expected a throw";
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("qmv.q4_k.r3.lb32"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(tune::preset::name), std::string::npos) << e.what();
  }
  EXPECT_THROW(registry::find_axes<ops::qmv::op>("q8_0", "r9999", "ls32"), std::out_of_range);
  EXPECT_THROW(registry::find<ops::quantize_rows::op>("quantize_rows.q4_0"), std::out_of_range);
}

TEST(Registry, OrdoSpecsListsEveryEntryOfEveryFamily) {
  const std::string cmd = std::string("'") + ORDO_BIN + "' specs";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::vector<std::string> lines;
  char buf[256];
  while (std::fgets(buf, sizeof buf, p)) lines.emplace_back(buf, strcspn(buf, "\n"));
  ASSERT_EQ(pclose(p), 0);
  std::vector<std::string> expected;
  registry::for_each_op([&]<class Op>() {
    for (const auto& e : registry::table<Op>) expected.emplace_back(e.name.view());
  });
  EXPECT_EQ(lines, expected);
}

}  // namespace
