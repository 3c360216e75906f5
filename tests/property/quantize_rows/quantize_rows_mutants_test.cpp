// Kept mutation check of quantize_rows' one reduction (a block's amax): the q8_32 quantizer with
// each half of a block scaled by its own half's maximum — what the warp form's butterfly would
// give with its first level (offset 16) missing (ops/quantize_rows/warp.hpp) — put into a copy of
// the real registry entry. The default driver run must report it through P2 (the replay is
// quantize's own walk); the unmutated entry built the same way passes.
#include <cstdio>

#include "gtest_family.hpp"
#include "ordo/quant/rounding.hpp"

namespace {

using namespace ordo;
using namespace ordo::test;
using qr_entry = registry::entry<ops::quantize_rows::op>;
using quant::q8_32;

/// Block b of row r with per-half maxima (MUTATION: one butterfly level short).
void half_maxima(const ops::quantize_rows::problem& p) {
  for (int r = 0; r < p.rows; ++r)
    for (int b = 0; b < p.k / q8_32::block_elems; ++b) {
      const float* x = p.x + std::size_t(r) * p.x_stride + std::size_t(b) * q8_32::block_elems;
      auto& out = reinterpret_cast<q8_32::block*>(p.out + std::size_t(r) * p.out_row_bytes)[b];
      float amax[2] = {0.0f, 0.0f};
      for (int i = 0; i < q8_32::block_elems; ++i) {
        const float a = x[i] < 0.0f ? -x[i] : x[i];
        amax[i / 16] = a > amax[i / 16] ? a : amax[i / 16];
      }
      for (int i = 0; i < q8_32::block_elems; ++i) {
        const float m = amax[i / 16], id = m != 0.0f ? 127.0f / m : 0.0f;
        int q = quant::code_even(x[i] * id);
        q = q > 127 ? 127 : (q < -127 ? -127 : q);
        out.qs[i] = static_cast<std::int8_t>(q);
      }
      out.d = amax[0] / 127.0f;
    }
}

TEST(QuantizeRowsMutants, BlockMaximumOverHalfTheLanesIsCaughtByP2) {
  qr_entry bad = registry::find_axes<ops::quantize_rows::op>(q8_32::name);
  bad.run_cpu = &half_maxima;
  const auto r = check_spec(cpu_backend(), bad, mutant_params(), property_set::cpu);
  std::printf("mutant %s\n", r.line().c_str());
  EXPECT_EQ(r.status_of("P2"), outcome::fail);
}

TEST(QuantizeRowsMutants, UnmutatedControlPasses) {
  const auto r = check_spec(cpu_backend(), registry::find_axes<ops::quantize_rows::op>(q8_32::name), mutant_params(),
                            property_set::cpu);
  std::printf("control %s\n", r.line().c_str());
  EXPECT_TRUE(r.passed());
}

}  // namespace
