// attention against the double-precision reference (ordo::ref::sink_attention_head) at DS4 dims:
// 64 heads × 512, histories of 128 raw + 512 selected compressed rows from a table of 2176, two
// query rows (the second sees only 100 raw rows: 28 invisible entries), within an error bound
// derived below for float32 vs double, per output element. The split and direct specs give the
// same bits on the same history.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "data.hpp"  // tests/property/drivers: order-sensitive inputs
#include "ordo/ops/attention/attention.hpp"
#include "ordo/ref/attention.hpp"
#include "ordo/ref/config.hpp"
#include "ordo/registry/table.hpp"

namespace {

using namespace ordo::ops::attention;
using ordo::test::unit_roundoff;

// Error bound, per output element d of a head (u = 2^-24, first order; ×1.01 covers the rest):
// - z_j: each product q_d·r_d passes at most 16 lane fmaf roundings and 5 butterfly additions
//   (21u of Σ|q·r|), then τ rounded to float (u) and the product by it (u):
//   |Δz_j| <= 23u·τΣ|q·r_j| <= δz := 23u·max_j τΣ|q·r_j|. m is one of z_j or s: |Δm| <= δz.
// - e_j = exp(z_j − m): the subtraction adds u·|z_j − m|, exp_f32 0.76 ulp <= 1.52u relative, so
//   e_j's relative error is <= ε := 2δz + u·max_j|z_j − m| + 1.52u (the sink term too).
// - den = e^(s−m) + Σ_c Σ_{j∈c} e_j: positive terms through at most D = chunk + n_chunks + 1
//   additions: relative error <= ε + D·u.
// - acc_d = Σ_c Σ_{j∈c} e_j·r_jd: at most D fmaf/additions per term: |Δ| <= (ε + D·u)·Σ e_j|r_jd|.
// - out_d = acc_d / den: one more rounding. So |Δout_d| <= (2ε + (2D + 1)u)·Σ_j w_j|r_jd|, with
//   w_j = e_j/den the exact softmax weights. The double reference's own error is ~2^-53 relative
//   to the same sum, far inside the 1.01 margin.
struct head_bound {
  std::vector<double> per_dim;
};

head_bound derive_bound(const float* q, const std::vector<const ordo::ref::vec*>& rows, double sink, int n, int chunk) {
  const double tau = 1.0 / std::sqrt(double(n));
  std::vector<double> z(rows.size());
  double s_max = 0, m = sink;
  for (std::size_t j = 0; j < rows.size(); ++j) {
    double dot = 0, abs_dot = 0;
    for (int d = 0; d < n; ++d) {
      dot += double(q[d]) * (*rows[j])[d];
      abs_dot += std::fabs(double(q[d]) * (*rows[j])[d]);
    }
    z[j] = tau * dot;
    s_max = std::max(s_max, tau * abs_dot);
    m = std::max(m, z[j]);
  }
  const double u = unit_roundoff, dz = 23 * u * s_max;
  double spread = std::fabs(sink - m), den = std::exp(sink - m);
  for (double zj : z) {
    spread = std::max(spread, std::fabs(zj - m));
    den += std::exp(zj - m);
  }
  const double eps = 2 * dz + u * spread + 1.52 * u;
  const int depth = chunk + int((rows.size() + std::size_t(chunk) - 1) / std::size_t(chunk)) + 1;
  const double k = (2 * eps + (2 * depth + 1) * u) * 1.01;
  head_bound b{std::vector<double>(std::size_t(n), 0.0)};
  for (std::size_t j = 0; j < rows.size(); ++j) {
    const double w = std::exp(z[j] - m) / den;
    for (int d = 0; d < n; ++d) b.per_dim[std::size_t(d)] += k * w * std::fabs((*rows[j])[d]);
  }
  return b;
}

TEST(AttentionRef, Ds4HistoryAgreesWithReferenceWithinDerivedBound) {
  const ordo::ref::config cfg;
  const int nh = int(cfg.n_head), hd = int(cfg.head_dim), raw = int(cfg.sliding_window), top = int(cfg.indexer_top_k);
  const int n_comp = 2048, n_kv = raw + n_comp, rows = 2;
  ordo::quant::splitmix64 rng{0xa77e};
  // Rows and queries like the model's (RMS-normed, so logits spread over a few units): full
  // mantissas, exponents over 2^-2..2^2, q scaled by 2^-3 exactly.
  const auto kv = ordo::test::mixed_floats(rng, std::size_t(n_kv) * std::size_t(hd), 2);
  auto q = ordo::test::mixed_floats(rng, std::size_t(rows) * std::size_t(nh * hd), 2);
  for (auto& v : q) v *= 0.125f;
  const auto sinks = ordo::test::mixed_floats(rng, std::size_t(nh), 1);
  // The indexer's selection, ascending (as the GPU keeps it): 512 distinct compressed rows.
  std::vector<std::int32_t> comp(static_cast<std::size_t>(n_comp));
  std::iota(comp.begin(), comp.end(), raw);
  for (std::size_t k = comp.size() - 1; k > 0; --k) std::swap(comp[k], comp[rng() % (k + 1)]);
  comp.resize(std::size_t(top));
  std::sort(comp.begin(), comp.end());
  const int listed = raw + top;
  std::vector<std::int32_t> gather(std::size_t(rows) * std::size_t(listed));
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < raw; ++j) gather[std::size_t(i * listed + j)] = i == 1 && j >= 100 ? -1 : j;
    std::copy(comp.begin(), comp.end(), gather.begin() + std::ptrdiff_t(i * listed + raw));
  }
  const std::vector<std::int32_t> n_listed(std::size_t(rows), listed);
  const float tau = float(1.0 / std::sqrt(double(hd)));
  auto make = [&](int live, float* out, float* workspace) {
    return problem{q.data(), std::size_t(nh * hd), kv.data(), std::size_t(hd), n_kv, gather.data(), std::size_t(listed),
                   n_listed.data(), listed, sinks.data(), tau, out, std::size_t(nh * hd), workspace, nh, hd, live};
  };
  std::vector<float> out(std::size_t(rows * nh * hd)), out_split(out.size()), out_direct(std::size_t(nh * hd));
  const auto& whole = ordo::registry::find<op>("attention.r2.kv64.general.whole");
  whole.run_cpu(make(rows, out.data(), nullptr));
  const auto& split = ordo::registry::find<op>("attention.r2.kv64.general.split");
  std::vector<float> workspace(split.info.workspace(make(rows, nullptr, nullptr)));
  split.run_cpu(make(rows, out_split.data(), workspace.data()));
  EXPECT_TRUE(ordo::test::same_bits(out, out_split)) << "split-KV must be the whole schedule's bits";
  ordo::registry::find<op>("attention.r1.kv64.direct.whole").run_cpu(make(1, out_direct.data(), nullptr));
  EXPECT_TRUE(ordo::test::same_bits(out_direct.data(), out.data(), out_direct.size())) << "direct == general on row 0";

  std::vector<ordo::ref::vec> table(static_cast<std::size_t>(n_kv), ordo::ref::vec(hd));
  for (int r = 0; r < n_kv; ++r)
    for (int d = 0; d < hd; ++d) table[std::size_t(r)][d] = kv[std::size_t(r) * std::size_t(hd) + std::size_t(d)];
  double worst = 0;  // |error| / bound
  for (int i = 0; i < rows; ++i) {
    std::vector<const ordo::ref::vec*> visible;
    for (int j = 0; j < listed; ++j)
      if (const std::int32_t at = gather[std::size_t(i * listed + j)]; at >= 0) visible.push_back(&table[std::size_t(at)]);
    for (int h = 0; h < nh; ++h) {
      const float* qh = q.data() + std::size_t(i * nh + h) * std::size_t(hd);
      std::vector<double> qd(qh, qh + hd);
      const ordo::ref::vec want = ordo::ref::sink_attention_head(qd.data(), visible, sinks[std::size_t(h)],
                                                                 1.0 / std::sqrt(double(hd)), hd);
      const auto bound = derive_bound(qh, visible, sinks[std::size_t(h)], hd, 64);
      for (int d = 0; d < hd; ++d) {
        const double got = out[std::size_t(i * nh + h) * std::size_t(hd) + std::size_t(d)];
        const double err = std::fabs(got - want[d]);
        worst = std::max(worst, err / bound.per_dim[std::size_t(d)]);
        ASSERT_LE(err, bound.per_dim[std::size_t(d)]) << "row " << i << " head " << h << " dim " << d;
      }
    }
  }
  std::printf("attention ds4 (64x512, 128 raw + 512 selected): worst error / derived bound = %.3g\n", worst);
}

}  // namespace
