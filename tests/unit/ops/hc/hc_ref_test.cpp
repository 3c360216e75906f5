// hc against the double-precision reference (ordo::ref::hc_pre, hc_post, hc_collapse) at DS4 dims
// (n_embd 4096 × 4 streams, 24 mixes, 20 Sinkhorn iterations), on the shipped order at tier 4,
// within per-element error bounds derived below for float32 vs double.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "hc_harness.hpp"
#include "ordo/ref/hc.hpp"

namespace {

using namespace ordo::test::hc;
using ordo::test::unit_roundoff;
constexpr double u = unit_roundoff;
constexpr int n_embd = 4096, flat = 4 * n_embd, rows = 4;

// The error bounds, first order in u = 2^-24, each with its own slack for the dropped higher-order
// terms (all below (k·u)² ~ 1e-9 relative here). k = ceil(16384 / 32) = 512 terms per lane (ls32).
//   inv = 1/rms(flat): rmsnorm's bound (rmsnorm_ref_test): ((k + 8)/2 + 2)·u relative.
//   mix_m = Σ_e fn·y_e: y_e = x_e·inv rounds once, k fmaf roundings per lane and 5 butterfly
//     additions each add at most u·Σ|terms|, so |Δmix_m| <= (ε_inv + (k + 7)·u)·A_m, A_m = Σ|fn_me·y_e|
//     (y, A from the double reference). fn is exact: F16 widens exactly and the reference gets the
//     same widened values.
//   z = mix·s + base: |Δz| <= |s|·|Δmix| + u·|mix·s| + u·|z|.
//   pre = σ(z) + eps: σ' <= 1/4, σ_f32 is within 0.76 ulp <= 1.52u·σ, + eps rounds once:
//     |Δpre| <= |Δz|/4 + 3u·pre.  post = 2σ(z): |Δpost| <= |Δz|/2 + 4u·post (×2 is exact).
//   comb: diagonal scalings are isometries of Hilbert's projective metric and the Sinkhorn
//     normalizations do not expand it (Birkhoff–Hopf), so a logit perturbation of at most ΔL moves
//     every entry by a relative 2·ΔL at most (the metric is the spread of the log ratios, twice
//     their max); each of the 40 half steps rounds every entry through 3 additions, + eps and a
//     division (5u), the softmax through exp, a subtraction, 3 additions, a division and + eps
//     (< 8u), and these, too, are not expanded: 2·ΔL + 208u. Converting the metric back to an
//     entrywise bound costs the same factor 2 again: |ΔM/M| <= 4·ΔL + 420u.
//   x_j = Σ_a pre_a·H_aj (4 fmaf): |Δx_j| <= Σ_a |Δpre_a|·|H_aj| + 5u·Σ_a |pre_a·H_aj|.
//   post stage (split given): 5 fmaf: |ΔH_new| <= 6u·(|post_a·f_j| + Σ_b |M_ab·H_bj|).
constexpr double k_terms = flat / 32;
constexpr double eps_inv = ((k_terms + 8) / 2 + 2) * u;

struct mix_bound {
  ordo::ref::vec mix, delta;  // the double mixes and |Δmix| bounds
};

mix_bound mixes(const ordo::ref::mat& fn, const std::vector<float>& h) {
  ordo::ref::vec x(flat);
  for (int e = 0; e < flat; ++e) x[e] = h[std::size_t(e)];
  const ordo::ref::vec y = ordo::ref::rms_norm_plain(x, 1e-6);
  mix_bound b;
  b.mix = fn * y;
  b.delta = (eps_inv + (k_terms + 7) * u) * (fn.cwiseAbs() * y.cwiseAbs());
  return b;
}

double delta_z(double mix, double dmix, double scale, double base) {
  const double z = mix * scale + base;
  return std::fabs(scale) * dmix + u * std::fabs(mix * scale) + u * std::fabs(z);
}

ordo::ref::mat fn_matrix(const hc_case& c, int mixes_count) {
  ordo::ref::mat fn(mixes_count, flat);
  for (int m = 0; m < mixes_count; ++m)
    for (int e = 0; e < flat; ++e)
      fn(m, e) = ordo::numeric::f16_to_f32(c.fn[std::size_t(m) * flat + std::size_t(e)]);
  return fn;
}

ordo::ref::hc_state state_of(const std::vector<float>& h) {
  ordo::ref::hc_state s(4, n_embd);
  for (int a = 0; a < 4; ++a)
    for (int j = 0; j < n_embd; ++j) s(a, j) = h[std::size_t(a) * n_embd + std::size_t(j)];
  return s;
}

/// Checks x against the reference collapse with the weights' bounds; returns the worst
/// |Δ| / bound seen.
double check_collapse(const std::vector<float>& got, const ordo::ref::vec& want, const std::vector<float>& h,
                      const double* pre, const double* dpre) {
  double worst = 0;
  for (int j = 0; j < n_embd; ++j) {
    double bound = 0;
    for (int a = 0; a < 4; ++a) {
      const double hv = std::fabs(double(h[std::size_t(a) * n_embd + std::size_t(j)]));
      bound += dpre[a] * hv + 5 * u * pre[a] * hv;
    }
    const double err = std::fabs(double(got[std::size_t(j)]) - want[j]);
    EXPECT_LE(err, bound) << "element " << j;
    worst = std::max(worst, err / bound);
  }
  return worst;
}

TEST(HcRef, PreAgreesWithReferenceWithinDerivedBound) {
  const auto& e = ordo::ops::hc::find_entry(rows, "ls32", stage::pre);
  double worst_x = 0, worst_split = 0;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const auto c = make_case(n_embd, rows, 0x4c00 + seed);
    const auto got = run(e, c, {0, 1, 2, 3});
    ordo::ref::hc_weights w{fn_matrix(c, n_pre_mix), ordo::ref::vec(3), ordo::ref::vec(n_pre_mix)};
    for (int i = 0; i < 3; ++i) w.scale[i] = c.scale[std::size_t(i)];
    for (int i = 0; i < n_pre_mix; ++i) w.base[i] = c.base[std::size_t(i)];
    const ordo::ref::config cfg;
    for (int i = 0; i < rows; ++i) {
      const auto& h = c.states[std::size_t(i)];
      const auto want = ordo::ref::hc_pre(state_of(h), w, cfg);
      const auto mb = mixes(w.fn, h);
      double pre[4], dpre[4], dl = 0;
      for (int a = 0; a < 4; ++a) {
        pre[a] = ordo::ref::sigmoid(mb.mix[a] * w.scale[0] + w.base[a]) + cfg.hc_eps;
        dpre[a] = delta_z(mb.mix[a], mb.delta[a], w.scale[0], w.base[a]) / 4 + 3 * u * pre[a];
        const double post_bound = delta_z(mb.mix[4 + a], mb.delta[4 + a], w.scale[1], w.base[4 + a]) / 2 + 4 * u * want.post[a];
        const double ds = std::fabs(double(got.split[std::size_t(i)][std::size_t(a)]) - pre[a]);
        const double dp = std::fabs(double(got.split[std::size_t(i)][std::size_t(4 + a)]) - want.post[a]);
        EXPECT_LE(ds, dpre[a]) << "pre " << a;
        EXPECT_LE(dp, post_bound) << "post " << a;
        worst_split = std::max({worst_split, ds / dpre[a], dp / post_bound});
      }
      for (int m = 8; m < n_pre_mix; ++m) dl = std::max(dl, delta_z(mb.mix[m], mb.delta[m], w.scale[2], w.base[m]));
      for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b) {
          const double ref = want.comb(a, b), bound = (4 * dl + 420 * u) * ref;
          const double err = std::fabs(double(got.split[std::size_t(i)][std::size_t(8 + a + 4 * b)]) - ref);
          EXPECT_LE(err, bound) << "comb " << a << "," << b;
          worst_split = std::max(worst_split, err / bound);
        }
      worst_x = std::max(worst_x, check_collapse(got.x[std::size_t(i)], want.x_sub, h, pre, dpre));
    }
  }
  std::printf("hc pre: worst error / bound: x_sub %.3g, split %.3g\n", worst_x, worst_split);
}

TEST(HcRef, HeadAgreesWithReferenceWithinDerivedBound) {
  const auto& e = ordo::ops::hc::find_entry(rows, "ls32", stage::head);
  const auto c = make_case(n_embd, rows, 0x4ead);
  const auto got = run(e, c, {0, 1, 2, 3});
  ordo::ref::hc_head_weights w{fn_matrix(c, 4), ordo::ref::vec(1), ordo::ref::vec(4)};
  w.scale[0] = c.scale[0];
  for (int a = 0; a < 4; ++a) w.base[a] = c.base[std::size_t(a)];
  const ordo::ref::config cfg;
  double worst = 0;
  for (int i = 0; i < rows; ++i) {
    const auto& h = c.states[std::size_t(i)];
    const auto mb = mixes(w.fn, h);
    double pre[4], dpre[4];
    for (int a = 0; a < 4; ++a) {
      pre[a] = ordo::ref::sigmoid(mb.mix[a] * w.scale[0] + w.base[a]) + cfg.hc_eps;
      dpre[a] = delta_z(mb.mix[a], mb.delta[a], w.scale[0], w.base[a]) / 4 + 3 * u * pre[a];
    }
    worst = std::max(worst, check_collapse(got.x[std::size_t(i)], ordo::ref::hc_collapse(state_of(h), w, cfg), h, pre, dpre));
  }
  std::printf("hc head: worst error / bound %.3g\n", worst);
}

TEST(HcRef, PostAgreesWithReferenceWithinDerivedBound) {
  const auto& e = ordo::ops::hc::find_entry(rows, "", stage::post);
  const auto c = make_case(n_embd, rows, 0x9057);
  const auto got = run(e, c, {0, 1, 2, 3});
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
    ordo::ref::vec f(n_embd);
    for (int j = 0; j < n_embd; ++j) f[j] = c.f[std::size_t(i)][std::size_t(j)];
    const auto want = ordo::ref::hc_post(f, state_of(h), split);
    for (int a = 0; a < 4; ++a)
      for (int j = 0; j < n_embd; ++j) {
        double mag = std::fabs(split.post[a] * f[j]);
        for (int b = 0; b < 4; ++b) mag += std::fabs(split.comb(a, b) * h[std::size_t(b) * n_embd + std::size_t(j)]);
        const double bound = 6 * u * mag;
        const double err = std::fabs(double(got.h_new[std::size_t(i)][std::size_t(a) * n_embd + std::size_t(j)]) - want(a, j));
        ASSERT_LE(err, bound) << "row " << i << " stream " << a << " element " << j;
        worst = std::max(worst, err / bound);
      }
  }
  std::printf("hc post: worst error / bound %.3g\n", worst);
}

}  // namespace
