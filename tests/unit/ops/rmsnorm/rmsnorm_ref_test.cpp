// rmsnorm against the double-precision reference (ordo::ref::rms_norm, rms_norm_plain) at the DS4
// shapes, on the shipped order, within an error bound derived below for float32 vs double.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "data.hpp"  // tests/property/drivers: order-sensitive inputs
#include "ordo/ops/rmsnorm/rmsnorm.hpp"
#include "ordo/registry/table.hpp"
#include "ordo/ref/basic.hpp"

namespace {

using namespace ordo::ops::rmsnorm;
using ordo::test::unit_roundoff;

// Error bound, relative to |y_ref|, for one head of n elements under ls32 (k = ceil(n/32) terms per
// lane). All terms x² are positive, so each rounding multiplies the sum by (1 + δ), |δ| <= u:
//   Σx²: k fmaf per lane + 5 butterfly additions  → relative error <= (k + 5)·u (first order)
//   / n, + eps (both round once; float(1e-6) is itself within u of 1e-6) → <= (k + 8)·u
//   rsqrt halves an input error and adds its own 0.5 ulp <= u  → <= (k + 8)/2·u + u
//   x·inv, then ·w: one rounding each                        → + 2u
// so |y − y_ref| <= ((k + 8)/2 + 3)·u·|y_ref|, plus 1·u for the second-order terms dropped above
// (each below (k·u)² ~ 1e-10 relative). The double reference itself errs by ~n·2^-53, far below.
double bound(int n) { return ((double((n + 31) / 32) + 8) / 2 + 4) * unit_roundoff; }

struct shape {
  const char* what;
  int n_heads, head_dim;
  bool weighted;
};

class RmsnormRef : public ::testing::TestWithParam<shape> {};

TEST_P(RmsnormRef, AgreesWithReferenceWithinDerivedBound) {
  const shape s = GetParam();
  const auto& e = ordo::registry::find<op>(s.weighted ? "rmsnorm.r4.ls32.weighted.f32" : "rmsnorm.r4.ls32.plain.f32");
  ordo::quant::splitmix64 rng{0x5eed0000u + std::uint64_t(s.head_dim)};
  const int width = s.n_heads * s.head_dim;
  const auto w = ordo::test::mixed_floats(rng, std::size_t(s.head_dim), 3);
  std::vector<float> x, y(4 * std::size_t(width));
  for (int i = 0; i < 4; ++i) {
    const auto row = ordo::test::mixed_floats(rng, std::size_t(width));
    x.insert(x.end(), row.begin(), row.end());
  }
  const problem p{x.data(), std::size_t(width), w.data(), y.data(), std::size_t(width), nullptr, 0,
                  s.n_heads, s.head_dim, 4, 1e-6f};
  e.run_cpu(p);
  ordo::ref::vec wd(s.head_dim);
  for (int j = 0; j < s.head_dim; ++j) wd[j] = w[std::size_t(j)];
  double worst = 0;
  for (int i = 0; i < 4; ++i)
    for (int h = 0; h < s.n_heads; ++h) {
      ordo::ref::vec xd(s.head_dim);
      const std::size_t at = std::size_t(i) * width + std::size_t(h) * s.head_dim;
      for (int j = 0; j < s.head_dim; ++j) xd[j] = x[at + std::size_t(j)];
      const ordo::ref::vec want = s.weighted ? ordo::ref::rms_norm(xd, wd, 1e-6) : ordo::ref::rms_norm_plain(xd, 1e-6);
      for (int j = 0; j < s.head_dim; ++j) {
        const double rel = std::fabs(double(y[at + std::size_t(j)]) - want[j]) / std::fabs(want[j]);
        worst = std::max(worst, rel);
        ASSERT_LE(rel, bound(s.head_dim)) << s.what << " row " << i << " head " << h << " elem " << j;
      }
    }
  std::printf("rmsnorm %s: worst relative error %.3g (bound %.3g)\n", s.what, worst, bound(s.head_dim));
}

INSTANTIATE_TEST_SUITE_P(Ds4, RmsnormRef,
                         ::testing::Values(shape{"attn_norm/ffn_norm 4096", 1, 4096, true},
                                           shape{"q_a_norm 1024", 1, 1024, true},
                                           shape{"kv_a_norm 512", 1, 512, true},
                                           shape{"q head norm 64x512", 64, 512, false},
                                           shape{"hc flat 16384", 1, 16384, false}));

}  // namespace
