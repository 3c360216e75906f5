// router against the double-precision reference (ordo::ref::route) with DS4's 256 experts, 6 used,
// ×1.5, on top-k layers (with the selection bias) and hash layers, within an error bound derived
// below for float32 vs double.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "data.hpp"  // tests/property/drivers: order-sensitive inputs
#include "ordo/ops/router/router.hpp"
#include "ordo/ref/moe.hpp"
#include "ordo/registry/table.hpp"

namespace {

using namespace ordo::ops::router;
using ordo::test::unit_roundoff;

// Error bounds, relative. p = sqrt(softplus(z)): softplus_f32 errs by <= 1.18 ulp <= 2.36u, the
// square root halves that and adds its own 0.5 ulp <= u: |Δp| <= 2.18u·p. A key p + bias adds one
// rounding: |Δkey| <= 2.18u·p + u·|key|. The weight p_i / Σp · 1.5: Σ of 6 positive terms errs by
// <= 2.18u (inputs) + 5u (additions), the division and the product by 1.5 round once each, so
// |Δw| <= (2.18 + 7.18 + 2)u·w = 11.36u·w; 11.5u covers the second-order terms.
constexpr double weight_bound = 11.5 * unit_roundoff;

struct layer_kind {
  const char* what;
  int layer;  // < hash_layer_count (3): hash routing
};

class RouterRef : public ::testing::TestWithParam<layer_kind> {};

TEST_P(RouterRef, AgreesWithReferenceWithinDerivedBound) {
  const auto kind = GetParam();
  ordo::ref::config cfg;
  const bool hash = kind.layer < int(cfg.hash_layer_count);
  constexpr int rows = 16, n_tokens = 64;
  ordo::quant::splitmix64 rng{0x70e7 + std::uint64_t(kind.layer)};
  ordo::ref::layer_weights w;
  w.router = ordo::ref::mat::Identity(cfg.n_expert, cfg.n_expert);  // the logits are the op's input
  std::vector<float> bias = ordo::test::mixed_floats(rng, std::size_t(cfg.n_expert), 2);
  for (auto& b : bias) b *= 0x1p-4f;
  std::vector<std::int32_t> table;
  for (int t = 0; t < n_tokens; ++t) {
    std::vector<std::int32_t> ids(std::size_t(cfg.n_expert_used));
    for (auto& id : ids) id = std::int32_t(rng() % std::uint64_t(cfg.n_expert));
    table.insert(table.end(), ids.begin(), ids.end());
    w.tid2eid.push_back(ids);
  }
  if (!hash) {
    w.router_bias.resize(cfg.n_expert);
    for (int e = 0; e < cfg.n_expert; ++e) w.router_bias[e] = bias[std::size_t(e)];
  }
  std::vector<float> logits;
  std::vector<std::int32_t> tokens;
  for (int i = 0; i < rows; ++i) {
    const auto row = ordo::test::mixed_floats(rng, std::size_t(cfg.n_expert), 3);
    logits.insert(logits.end(), row.begin(), row.end());
    tokens.push_back(std::int32_t(rng() % n_tokens));
  }
  std::vector<std::int32_t> experts(rows * 6);
  std::vector<float> weights(rows * 6);
  const auto& e = ordo::registry::find<op>(hash ? "router.r16.hash" : "router.r16.topk");
  e.run_cpu(problem{logits.data(), std::size_t(cfg.n_expert), hash ? nullptr : bias.data(), table.data(), tokens.data(),
                    n_tokens, experts.data(), weights.data(), 6, int(cfg.n_expert), int(cfg.n_expert_used), rows,
                    float(cfg.expert_weights_scale), float(ordo::ref::router_sum_floor)});
  int compared = 0;
  double worst = 0;
  for (int i = 0; i < rows; ++i) {
    ordo::ref::vec x(cfg.n_expert);
    for (int j = 0; j < cfg.n_expert; ++j) x[j] = logits[std::size_t(i) * cfg.n_expert + std::size_t(j)];
    const auto want = ordo::ref::route(w, cfg, kind.layer, x, tokens[std::size_t(i)]);
    if (!hash) {
      // The float keys may order two experts differently only if their double keys are closer
      // than the keys' error bound (2.18u·p + u·|key| each): skip such rows, and count the rest.
      std::vector<double> key(std::size_t(cfg.n_expert));
      for (int j = 0; j < cfg.n_expert; ++j) key[std::size_t(j)] = std::sqrt(ordo::ref::softplus(x[j])) + w.router_bias[j];
      std::vector<double> sorted = key;
      std::sort(sorted.begin(), sorted.end(), std::greater<>());
      bool separated = true;
      for (int k = 0; k < cfg.n_expert_used; ++k)
        separated &= sorted[std::size_t(k)] - sorted[std::size_t(k) + 1] > 8 * unit_roundoff * (std::fabs(sorted[std::size_t(k)]) + 1);
      if (!separated) continue;
    }
    ++compared;
    for (int k = 0; k < cfg.n_expert_used; ++k) {
      ASSERT_EQ(experts[std::size_t(i) * 6 + std::size_t(k)], want.experts[std::size_t(k)]) << "row " << i << " rank " << k;
      const double got = weights[std::size_t(i) * 6 + std::size_t(k)];
      const double rel = std::fabs(got - want.weight[std::size_t(k)]) / want.weight[std::size_t(k)];
      worst = std::max(worst, rel);
      ASSERT_LE(rel, weight_bound) << "row " << i << " rank " << k;
    }
  }
  std::printf("router %s: %d of %d rows compared, worst weight error %.3g (bound %.3g)\n", kind.what, compared, rows,
              worst, weight_bound);
  EXPECT_GE(compared, rows * 3 / 4);
}

INSTANTIATE_TEST_SUITE_P(Ds4, RouterRef, ::testing::Values(layer_kind{"hash layer 0", 0}, layer_kind{"top-k layer 3", 3},
                                                           layer_kind{"top-k layer 42", 42}));

}  // namespace
