// rope against the double-precision reference (ordo::ref::rope_heads with the layer's parameters)
// at the DS4 shapes, forward and inverse, plain (ratio 0) and YaRN (compressed) layers, positions
// from 0 to 10^6, within an error bound derived below for float32 vs double.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "data.hpp"  // tests/property/drivers: order-sensitive inputs
#include "ordo/ops/rope/rope.hpp"
#include "ordo/ops/rope/table.hpp"
#include "ordo/ref/rope.hpp"
#include "ordo/registry/table.hpp"

namespace {

using namespace ordo::ops::rope;
using ordo::test::unit_roundoff;

// Error bound for one rotated pair (x0, x1) → (y0, y1), absolute. The kernel uses c_f = c(1+δ1),
// s_f = s(1+δ2) (the float tables, one rounding each), p = x1·s_f(1+δ3) and y0 = (x0·c_f − p)(1+δ4)
// (fmaf rounds once); so |y0 − y0_ref| <= u·|x0·c| + 2u·|x1·s| + u·|y0| <= 3u·(|x0| + |x1|), and the
// same for y1. The angles are computed in double by two codes (table.hpp, ref::rope_angle) from the
// same formula: they differ by a few double roundings of θ <= pos, i.e. <= 8·2^-53·pos in angle,
// which moves (y0, y1) by at most that times |x0| + |x1|. Second-order terms (u²) are covered by
// the 1% margin on 3u.
double bound(double x0, double x1, double pos) {
  return (3.03 * unit_roundoff + 8 * 0x1p-53 * pos) * (std::fabs(x0) + std::fabs(x1));
}

struct shape {
  const char* what;
  int n_heads, head_dim;
};

class RopeRef : public ::testing::TestWithParam<std::tuple<shape, int, direction>> {};

TEST_P(RopeRef, AgreesWithReferenceWithinDerivedBound) {
  const auto [s, ratio, dir] = GetParam();
  ordo::ref::config cfg;
  const auto params = ordo::ref::layer_rope(cfg, ratio);
  const angles table{.n_rot = params.n_rot, .base = params.base, .yarn = params.yarn, .factor = params.y.factor,
                     .original_context = params.y.original_context, .beta_fast = params.y.beta_fast,
                     .beta_slow = params.y.beta_slow};
  const auto& e = ordo::registry::find<op>(dir == direction::forward ? "rope.r8.forward" : "rope.r8.inverse");
  ordo::quant::splitmix64 rng{0x0e0e + std::uint64_t(ratio) + 31 * std::uint64_t(s.head_dim)};
  const double positions[] = {0, 1, 127, 4097, 65535, 65536 + 4096, 300000, 1000000};
  const int width = s.n_heads * s.head_dim;
  std::vector<float> x, t(8 * std::size_t(params.n_rot));
  for (int i = 0; i < 8; ++i) {
    const auto row = ordo::test::mixed_floats(rng, std::size_t(width));
    x.insert(x.end(), row.begin(), row.end());
    table.fill(positions[i], t.data() + std::size_t(i) * params.n_rot);
  }
  const std::vector<float> input = x;
  e.run_cpu(problem{x.data(), std::size_t(width), t.data(), std::size_t(params.n_rot), s.n_heads, s.head_dim, params.n_rot, 8});
  double worst = 0;
  for (int i = 0; i < 8; ++i) {
    ordo::ref::vec v(width);
    for (int j = 0; j < width; ++j) v[j] = input[std::size_t(i) * width + std::size_t(j)];
    ordo::ref::rope_heads(v, s.head_dim, params, positions[i],
                          dir == direction::forward ? ordo::ref::rope_direction::forward : ordo::ref::rope_direction::inverse);
    for (int j = 0; j < width; j += 2) {
      const std::size_t at = std::size_t(i) * width + std::size_t(j);
      const double b = bound(input[at], input[at + 1], positions[i]);
      for (int m = 0; m < 2; ++m) {
        const double err = std::fabs(double(x[at + std::size_t(m)]) - v[j + m]);
        worst = std::max(worst, err / b);
        ASSERT_LE(err, b) << s.what << " pos " << positions[i] << " dim " << j + m;
      }
    }
  }
  std::printf("rope %s ratio %d %s: worst error %.3f of the bound\n", s.what, ratio, std::string(ordo_name(dir)).c_str(), worst);
}

INSTANTIATE_TEST_SUITE_P(Ds4, RopeRef,
                         ::testing::Combine(::testing::Values(shape{"q 64x512", 64, 512}, shape{"kv 512", 1, 512},
                                                              shape{"indexer q 64x128", 64, 128}),
                                            ::testing::Values(0, 4), ::testing::Values(direction::forward, direction::inverse)));

// The YaRN correction range table.hpp computes for base 160000 is the one ds4-model.md states.
TEST(RopeTable, YarnRangeIsPairs15To25) {
  const angles a{.n_rot = 64, .base = 160000.0, .yarn = true};
  const double pos = 1000.0;
  for (int k = 0; k < 32; ++k) {
    const double unscaled = pos * std::pow(160000.0, -2.0 * k / 64);
    if (k <= 15) EXPECT_EQ(a.theta(pos, k), unscaled) << k;
    if (k >= 25) EXPECT_DOUBLE_EQ(a.theta(pos, k), unscaled / 16) << k;
    if (k > 15 && k < 25) EXPECT_LT(a.theta(pos, k), unscaled) << k;
  }
}

}  // namespace
