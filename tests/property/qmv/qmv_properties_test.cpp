// qmv: the generic drivers (P1–P5 + oracle, DESIGN §7) over every spec on the CPU executor, and
// the real DS4 shapes at full size: every order and tier of the format, every row, against
// tier 1 (P1) and the host replay (P2).
#include "gtest_family.hpp"

namespace {

using namespace ordo;
using namespace ordo::test;
using H = harness<ops::qmv::op>;

TEST(QmvProperties, EverySpecPassesTheDrivers) {
  expect_family_passes<ops::qmv::op>(cpu_backend(), property_set::cpu);
}

struct ds4_shape {
  const char* format;
  int n_out, k;
};
class QmvDs4Shapes : public ::testing::TestWithParam<ds4_shape> {};

TEST_P(QmvDs4Shapes, EveryTierAndOrderEveryRowEqualsTier1AndReplay) {
  const auto s = GetParam();
  int dot_elems = 0;
  H::with_format(s.format, [&]<class F>() { dot_elems = F::dot_elems; });
  int largest = 0;
  for (const auto& e : registry::table<ops::qmv::op>)
    if (e.info.format == s.format) largest = std::max(largest, e.tier);
  const auto d = H::make(s.format, s.n_out, s.k / dot_elems, largest, 42);
  int orders = 0;
  for (const auto& one : registry::table<ops::qmv::op>) {
    if (one.info.format != s.format || one.tier != 1) continue;
    ++orders;
    std::vector<std::vector<std::byte>> alone;
    for (int r = 0; r < largest; ++r) {
      alone.push_back(H::run(cpu_backend(), one, d, {r}, H::tight_layout()).rows[0]);
      EXPECT_TRUE(same_bits(alone.back(), H::replay(one, d, r))) << one.name.view() << " row " << r;
    }
    for (const auto& e : registry::table<ops::qmv::op>) {
      if (e.info.format != s.format || e.info.order != one.info.order || e.tier == 1) continue;
      std::vector<int> ids(static_cast<std::size_t>(e.tier));
      std::iota(ids.begin(), ids.end(), 0);
      const auto many = H::run(cpu_backend(), e, d, ids, H::tight_layout());
      ASSERT_TRUE(many.padding_intact) << e.name.view();
      for (int r = 0; r < e.tier; ++r) EXPECT_TRUE(same_bits(many.rows[std::size_t(r)], alone[std::size_t(r)])) << e.name.view() << " row " << r;
    }
  }
  EXPECT_GE(orders, 1);
}

INSTANTIATE_TEST_SUITE_P(Ds4, QmvDs4Shapes,
                         ::testing::Values(ds4_shape{"mxfp4", 2048, 4096},   // routed gate/up
                                           ds4_shape{"mxfp4", 4096, 2048},   // routed down
                                           ds4_shape{"q8_0", 32768, 1024},   // attention q_b
                                           ds4_shape{"q8_0", 8192, 512},     // compressed rows
                                           ds4_shape{"q4_k", 2048, 4096}, ds4_shape{"iq2_xxs", 2048, 4096},
                                           ds4_shape{"q2_k", 4096, 2048}));

}  // namespace
