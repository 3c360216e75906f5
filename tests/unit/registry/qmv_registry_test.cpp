// The qmv registry: the table is sorted and unique, every spec of the Hana space is in it with
// its name derived from its types, lookups that miss name the spec, and `ordo specs` prints it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>

#include "ordo/registry/qmv_registry.hpp"

namespace {

using ordo::registry::find_qmv;
using ordo::registry::qmv_table;

TEST(QmvRegistry, SortedUniqueAndComplete) {
  EXPECT_TRUE(std::is_sorted(qmv_table.begin(), qmv_table.end(),
                             [](const auto& a, const auto& b) { return a.name.view() < b.name.view(); }));
  std::set<std::string> names;
  for (const auto& e : qmv_table) names.insert(std::string(e.name.view()));
  EXPECT_EQ(names.size(), qmv_table.size());
  std::size_t space = 0;
  ordo::registry::for_each_qmv_spec([&](auto, auto, auto) { ++space; });
  EXPECT_EQ(space, qmv_table.size());
  // every format ships the strided order at every tier of the preset
  for (const auto& f : ordo::quant::format_table)
    for (int r : ordo::tune::qmv_tiers::values) EXPECT_NO_THROW(find_qmv(f.name, r, "ls32")) << f.name << " r" << r;
}

TEST(QmvRegistry, NamesComeFromTheTypes) {
  const auto& e = find_qmv("qmv.mxfp4.r1.ls32");
  EXPECT_EQ(e.format, "mxfp4");
  EXPECT_EQ(e.activation, "q8_32");
  EXPECT_EQ(e.tier, 1);
  EXPECT_EQ(e.order, "ls32");
  EXPECT_EQ(&find_qmv("mxfp4", 1, "ls32"), &e);
  EXPECT_EQ(find_qmv("q4_k", 1, "ls32").activation, "q8_k");
  // activation block geometry (ds4-model §10.2 for q8_k: f32 d + 256 int8 + 16 int16 = 292 bytes)
  EXPECT_EQ(ordo::registry::find_quantize("q8_32").block_bytes, 36);
  EXPECT_EQ(ordo::registry::find_quantize("q8_32").block_elems, 32);
  EXPECT_EQ(ordo::registry::find_quantize("q8_k").block_bytes, 292);
  EXPECT_EQ(ordo::registry::find_quantize("q8_k").block_elems, 256);
}

TEST(QmvRegistry, MissingSpecFailsLoudlyWithItsName) {
  try {
    find_qmv("q4_k", 3, "lb32");  // lane_blocked is filtered out for k-quants
    FAIL() << "expected a throw";
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("qmv.q4_k.r3.lb32"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(ordo::tune::name), std::string::npos) << e.what();
  }
  EXPECT_THROW(find_qmv("q8_0", 9999, "ls32"), std::out_of_range);
  EXPECT_THROW(ordo::registry::find_quantize("q4_0"), std::out_of_range);
}

TEST(QmvRegistry, OrdoSpecsListsEveryEntry) {
  const std::string cmd = std::string("'") + ORDO_BIN + "' specs";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::vector<std::string> lines;
  char buf[256];
  while (std::fgets(buf, sizeof buf, p)) lines.emplace_back(buf, strcspn(buf, "\n"));
  ASSERT_EQ(pclose(p), 0);
  ASSERT_EQ(lines.size(), qmv_table.size());
  for (std::size_t i = 0; i < lines.size(); ++i) EXPECT_EQ(lines[i], qmv_table[i].name.view());
}

}  // namespace
