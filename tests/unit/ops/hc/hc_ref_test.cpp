// hc against the double-precision reference (ordo::ref::sinkhorn, sigmoid, hc_post and the
// collapse Σ_a w[a]·H[a] of hc_pre / hc_collapse) at DS4 dims (n_embd 4096 × 4 streams, 24 mixes,
// 20 Sinkhorn iterations) at tier 4, within per-element error bounds derived below for float32 vs
// double. Each stage gets the same float inputs as the reference (exact in double), so the bounds
// cover only the stage's own roundings.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "harness.hpp"
#include "ordo/ref/basic.hpp"
#include "ordo/ref/hc.hpp"

namespace {

using H = ordo::test::harness<ordo::ops::hc::op>;
using ordo::ops::hc::stage;

/// The float rows of a tier-4 run of spec `name` on pool rows 0..3 (the CPU executor).
std::vector<std::vector<float>> run4(const char* name, const H::data& c) {
  const auto r = H::run(ordo::test::cpu_backend(), ordo::registry::find<ordo::ops::hc::op>(name), c, {0, 1, 2, 3}, H::tight_layout());
  std::vector<std::vector<float>> slots;
  for (const auto& b : r.rows) slots.push_back(H::floats_of(b));
  return slots;
}

constexpr double u = 0x1p-24;  // the unit roundoff of float32
constexpr int n_embd = 4096, rows = 4;
const ordo::ref::config cfg;

// Bounds, first order in u = 2^-24 (the dropped terms are below (500u)² relative):
//   z = mix·s + base rounds twice: |Δz| <= u·|mix·s| + u·|z|.
//   pre = σ(z) + eps: |σ'| <= 1/4, σ_f32 is within 0.76 ulp <= 1.52u·σ, + eps rounds once:
//     |Δpre| <= |Δz|/4 + 3u·pre.  post = 2σ(z) (×2 exact): |Δpost| <= |Δz|/2 + 4u·post.
//   comb: diagonal scalings are isometries of Hilbert's projective metric and the Sinkhorn
//     normalizations do not expand it (Birkhoff–Hopf), so logits off by at most ΔL move the result
//     by at most 2·ΔL in that metric (the spread of the log ratios, twice their max); each of the
//     40 half steps rounds every entry through 3 additions, + eps and a division (5u), the softmax
//     through exp (1.52u), a subtraction, 3 additions, a division and + eps (< 8u together), and
//     these are not expanded either: 2·ΔL + 208u. Back to an entrywise relative bound costs the
//     same factor 2: |ΔM/M| <= 4·ΔL + 420u.
//   weighted_sum (weights given): 4 fmaf: |Δx_j| <= 5u·Σ_a |pre_a·H_aj| (one u of slack).
//   collapse: the weights' errors plus the sum's: Σ_a |Δw_a|·|H_aj| + 5u·Σ_a |w_a·H_aj|.
//   post (split given): 5 fmaf: |ΔH_new| <= 6u·(|post_a·f_j| + Σ_b |M_ab·H_bj|).
double delta_z(double mix, double scale, double base) {
  return u * std::fabs(mix * scale) + u * std::fabs(mix * scale + base);
}

/// Worst |error| / bound over one collapse x = Σ_a w[a]·H[a] against double weights `w` whose
/// float counterparts are within `dw`.
double check_collapse(const std::vector<float>& got, const std::vector<float>& h, const double* w, const double* dw) {
  double worst = 0;
  for (int j = 0; j < n_embd; ++j) {
    double want = 0, bound = 0;
    for (int a = 0; a < 4; ++a) {
      const double hv = h[std::size_t(a) * n_embd + std::size_t(j)];
      want += w[a] * hv;
      bound += dw[a] * std::fabs(hv) + 5 * u * std::fabs(w[a] * hv);
    }
    const double err = std::fabs(double(got[std::size_t(j)]) - want);
    EXPECT_LE(err, bound) << "element " << j;
    worst = std::max(worst, err / bound);
  }
  return worst;
}

TEST(HcRef, SplitAgreesWithReferenceWithinDerivedBound) {
  double worst_gate = 0, worst_comb = 0;
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    const auto c = H::make(8, rows, 0x5b00 + seed);
    const auto got = run4("hc.r4.split", c);
    for (int i = 0; i < rows; ++i) {
      const auto& mix = c.mixes[std::size_t(i)];
      const auto& s = got[std::size_t(i)];
      const auto z = [&](int m, int k) { return double(mix[std::size_t(m)]) * c.scale[std::size_t(k)] + c.base[std::size_t(m)]; };
      for (int a = 0; a < 4; ++a) {
        const double pre = ordo::ref::sigmoid(z(a, 0)) + cfg.hc_eps, post = 2 * ordo::ref::sigmoid(z(4 + a, 1));
        const double pre_bound = delta_z(mix[std::size_t(a)], c.scale[0], c.base[std::size_t(a)]) / 4 + 3 * u * pre;
        const double post_bound = delta_z(mix[std::size_t(4 + a)], c.scale[1], c.base[std::size_t(4 + a)]) / 2 + 4 * u * post;
        EXPECT_LE(std::fabs(s[std::size_t(a)] - pre), pre_bound) << "pre " << a;
        EXPECT_LE(std::fabs(s[std::size_t(4 + a)] - post), post_bound) << "post " << a;
        worst_gate = std::max({worst_gate, std::fabs(s[std::size_t(a)] - pre) / pre_bound,
                               std::fabs(s[std::size_t(4 + a)] - post) / post_bound});
      }
      ordo::ref::mat logits(4, 4);
      double dl = 0;
      for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b) {
          const int m = 8 + a + 4 * b;
          logits(a, b) = z(m, 2);
          dl = std::max(dl, delta_z(mix[std::size_t(m)], c.scale[2], c.base[std::size_t(m)]));
        }
      const ordo::ref::mat comb = ordo::ref::sinkhorn(logits, cfg.hc_sinkhorn_iters, cfg.hc_eps);
      for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b) {
          const double bound = (4 * dl + 420 * u) * comb(a, b);
          const double err = std::fabs(double(s[std::size_t(8 + a + 4 * b)]) - comb(a, b));
          EXPECT_LE(err, bound) << "comb " << a << "," << b << " seed " << seed;
          worst_comb = std::max(worst_comb, err / bound);
        }
    }
  }
  std::printf("hc split: worst error / bound: pre and post %.3g, comb %.3g\n", worst_gate, worst_comb);
}

TEST(HcRef, WeightedSumAgreesWithReferenceWithinDerivedBound) {
  const auto c = H::make(n_embd, rows, 0x3a5e);
  const auto got = run4("hc.r4.weighted_sum", c);
  double worst = 0;
  for (int i = 0; i < rows; ++i) {
    double w[4], dw[4] = {0, 0, 0, 0};
    for (int a = 0; a < 4; ++a) w[a] = c.splits[std::size_t(i)][std::size_t(a)];
    worst = std::max(worst, check_collapse(got[std::size_t(i)], c.states[std::size_t(i)], w, dw));
  }
  std::printf("hc weighted_sum: worst error / bound %.3g\n", worst);
}

TEST(HcRef, CollapseAgreesWithReferenceWithinDerivedBound) {
  const auto c = H::make(n_embd, rows, 0x4ead);
  const auto got = run4("hc.r4.collapse", c);
  double worst = 0;
  for (int i = 0; i < rows; ++i) {
    const auto& mix = c.mixes[std::size_t(i)];
    double w[4], dw[4];
    for (int a = 0; a < 4; ++a) {
      w[a] = ordo::ref::sigmoid(double(mix[std::size_t(a)]) * c.scale[0] + c.base[std::size_t(a)]) + cfg.hc_eps;
      dw[a] = delta_z(mix[std::size_t(a)], c.scale[0], c.base[std::size_t(a)]) / 4 + 3 * u * w[a];
    }
    worst = std::max(worst, check_collapse(got[std::size_t(i)], c.states[std::size_t(i)], w, dw));
  }
  std::printf("hc collapse: worst error / bound %.3g\n", worst);
}

TEST(HcRef, PostAgreesWithReferenceWithinDerivedBound) {
  const auto c = H::make(n_embd, rows, 0x9057);
  const auto got = run4("hc.r4.post", c);
  double worst = 0;
  for (int i = 0; i < rows; ++i) {
    const auto& h = c.states[std::size_t(i)];
    const auto& s = c.splits[std::size_t(i)];
    ordo::ref::hc_split split;
    split.post.resize(4);
    split.comb.resize(4, 4);
    for (int a = 0; a < 4; ++a) {
      split.post[a] = s[std::size_t(4 + a)];
      for (int b = 0; b < 4; ++b) split.comb(a, b) = s[std::size_t(8 + a + 4 * b)];
    }
    ordo::ref::hc_state old(4, n_embd);
    for (int a = 0; a < 4; ++a)
      for (int j = 0; j < n_embd; ++j) old(a, j) = h[std::size_t(a) * n_embd + std::size_t(j)];
    ordo::ref::vec f(n_embd);
    for (int j = 0; j < n_embd; ++j) f[j] = c.f[std::size_t(i)][std::size_t(j)];
    const auto want = ordo::ref::hc_post(f, old, split);
    for (int a = 0; a < 4; ++a)
      for (int j = 0; j < n_embd; ++j) {
        double mag = std::fabs(split.post[a] * f[j]);
        for (int b = 0; b < 4; ++b) mag += std::fabs(split.comb(a, b) * old(b, j));
        const double bound = 6 * u * mag;
        const double err = std::fabs(double(got[std::size_t(i)][std::size_t(a) * n_embd + std::size_t(j)]) - want(a, j));
        ASSERT_LE(err, bound) << "row " << i << " stream " << a << " element " << j;
        worst = std::max(worst, err / bound);
      }
  }
  std::printf("hc post: worst error / bound %.3g\n", worst);
}

}  // namespace
