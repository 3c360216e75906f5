/// Test harness of router for the generic drivers: 256 experts (6 used) or odd counts, logits of
/// mixed magnitude and sign, deliberate ties, a selection bias or none, a tid2eid table; runs
/// with chosen pool rows in chosen slots, NaN-padded logits, poisoned rows past the live count
/// (tokens −1) and sentinel-filled outputs; the host replay and the oracle of the weight sum. A
/// slot's bytes: its n_used expert ids, then their n_used weights.
#pragma once
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "../drivers/data.hpp"
#include "../drivers/properties.hpp"
#include "ordo/ops/router/replay.hpp"
#include "ordo/ops/router/router.hpp"

namespace ordo::test {

template <>
struct harness<ops::router::op> {
  using op = ops::router::op;
  using entry = registry::entry<op>;
  static constexpr int order_axis = -1;    // an exact top-k and one fixed sum order: no order axis
  static constexpr int untiered_rows = 1;  // unused: every router spec has a tier
  static constexpr float scale = 1.5f, sum_floor = 6.103515625e-5f;

  struct data {
    int n_expert = 256, n_used = 6, n_tokens = 0;
    std::vector<float> bias;               // empty: no bias
    std::vector<std::int32_t> tid2eid;     // [n_tokens][n_used]
    std::vector<std::vector<float>> pool;  // logits rows
    std::vector<std::int32_t> tokens;      // per pool row
  };
  struct layout {
    std::size_t logit_pad = 0, out_pad = 0;
  };

  /// `ties`: a third of each row's logits copy another of its logits and there is no bias, so equal
  /// keys are common and the lowest-id rule decides.
  static data make(int n_expert, int n_used, int pool, bool with_bias, bool ties, std::uint64_t seed) {
    data d;
    d.n_expert = n_expert;
    d.n_used = n_used;
    quant::splitmix64 rng{seed};
    if (with_bias && !ties)
      for (int e = 0; e < n_expert; ++e) d.bias.push_back(mixed_float(rng, 3));
    d.n_tokens = 1 + int(rng() % 50);
    for (int t = 0; t < d.n_tokens * n_used; ++t) d.tid2eid.push_back(std::int32_t(rng() % std::uint64_t(n_expert)));
    for (int i = 0; i < pool; ++i) {
      std::vector<float> row(static_cast<std::size_t>(n_expert));
      for (auto& v : row) v = mixed_float(rng, 4);
      if (ties)
        for (int j = 0; j < n_expert / 3; ++j) row[rng() % std::uint64_t(n_expert)] = row[rng() % std::uint64_t(n_expert)];
      d.pool.push_back(std::move(row));
      d.tokens.push_back(std::int32_t(rng() % std::uint64_t(d.n_tokens)));
    }
    return d;
  }

  /// DS4's 256 experts, 6 used, on most cases; odd counts otherwise.
  static data draw(const entry&, int pool, int c) {
    const bool ds4 = c % 3 != 2;
    const int n_expert = ds4 ? 256 : detail::uniform(8, 299);
    const int n_used = ds4 ? 6 : detail::uniform(1, 8);
    const bool with_bias = detail::uniform(0, 1) == 1, ties = detail::uniform(0, 1) == 1;
    return make(n_expert, n_used, pool, with_bias, ties, *rc::gen::resize(100, rc::gen::arbitrary<std::uint64_t>()));
  }

  static layout tight_layout() { return {}; }
  static layout draw_padded_layout() { return {std::size_t(detail::uniform(1, 40)), std::size_t(detail::uniform(0, 9))}; }

  static constexpr std::int32_t id_sentinel = std::int32_t(0x7fc0dea1);

  static run_result run(const backend& be, const entry& e, const data& d, const std::vector<int>& ids, const layout& l) {
    const int n = int(ids.size());
    if (n < 1 || n > e.tier) throw std::invalid_argument("router run: row count outside the tier");
    const std::size_t ls = std::size_t(d.n_expert) + l.logit_pad, os = std::size_t(d.n_used) + l.out_pad, rows = std::size_t(e.tier);
    std::vector<float> logits(rows * ls, std::numeric_limits<float>::quiet_NaN());
    std::vector<std::int32_t> tokens(rows, -1);  // rows past n: an id that would read outside tid2eid
    for (int s = 0; s < n; ++s) {
      const auto id = std::size_t(ids[std::size_t(s)]);
      std::memcpy(logits.data() + std::size_t(s) * ls, d.pool.at(id).data(), std::size_t(d.n_expert) * 4);
      tokens[std::size_t(s)] = d.tokens[id];
    }
    std::vector<std::int32_t> experts(rows * os, id_sentinel);
    std::vector<std::uint32_t> weights(rows * os, out_sentinel);
    be.run(e, {logits.data(), ls, d.bias.empty() ? nullptr : d.bias.data(), d.tid2eid.data(), tokens.data(), d.n_tokens,
               experts.data(), reinterpret_cast<float*>(weights.data()), os, d.n_expert, d.n_used, n, scale, sum_floor});
    run_result r;
    for (std::size_t s = 0; s < rows; ++s)
      for (std::size_t j = s < std::size_t(n) ? std::size_t(d.n_used) : 0; j < os; ++j)
        r.padding_intact &= experts[s * os + j] == id_sentinel && weights[s * os + j] == out_sentinel;
    for (int s = 0; s < n; ++s) {
      std::vector<std::byte> row(8 * std::size_t(d.n_used));
      std::memcpy(row.data(), experts.data() + std::size_t(s) * os, 4 * std::size_t(d.n_used));
      std::memcpy(row.data() + 4 * std::size_t(d.n_used), weights.data() + std::size_t(s) * os, 4 * std::size_t(d.n_used));
      r.rows.push_back(std::move(row));
    }
    return r;
  }

  static std::vector<std::byte> replay(const entry& e, const data& d, int pool_row) {
    const auto id = std::size_t(pool_row);
    const std::int32_t* hash_row =
        e.info.chooses == ops::router::selection::hash ? d.tid2eid.data() + std::size_t(d.tokens[id]) * std::size_t(d.n_used) : nullptr;
    const auto want = ops::router::replay::row(d.pool[id].data(), d.n_expert, d.bias.empty() ? nullptr : d.bias.data(), hash_row,
                                               d.n_used, scale, sum_floor);
    std::vector<std::byte> bytes(8 * std::size_t(d.n_used));
    std::memcpy(bytes.data(), want.experts.data(), 4 * std::size_t(d.n_used));
    std::memcpy(bytes.data() + 4 * std::size_t(d.n_used), want.weights.data(), 4 * std::size_t(d.n_used));
    return bytes;
  }

  /// The oracle of the one float reduction, the weights, against double: for the experts the
  /// kernel chose (distinct, in range; on hash layers the token's table row),
  /// w_k = p_k / max(Σ p, floor) · 1.5 with p = sqrt(log1p(exp(z))) in double. Bound, relative:
  /// softplus_f32 errs by <= 1.18 ulp <= 2.36u, the square root halves that and adds 0.5 ulp:
  /// |Δp| <= 2.18u·p; the sum of <= 8 positive terms adds <= 7u, the division and the product by
  /// 1.5 round once each: |Δw| <= (2.18 + 2.18 + 7 + 2)u·w = 13.36u·w; 13.5u covers second-order terms.
  static std::string oracle(const entry& e, const data& d, int pool_row, const std::vector<std::byte>& got) {
    const auto id = std::size_t(pool_row);
    std::vector<std::int32_t> ex(std::size_t(d.n_used));
    std::vector<float> w(std::size_t(d.n_used));
    std::memcpy(ex.data(), got.data(), 4 * ex.size());
    std::memcpy(w.data(), got.data() + 4 * ex.size(), 4 * w.size());
    if (e.info.chooses == ops::router::selection::hash) {
      for (int k = 0; k < d.n_used; ++k)
        if (ex[std::size_t(k)] != d.tid2eid[std::size_t(d.tokens[id]) * std::size_t(d.n_used) + std::size_t(k)])
          return "hash expert " + std::to_string(k) + " is not the token's table entry";
    } else {
      const std::set<std::int32_t> distinct(ex.begin(), ex.end());
      if (int(distinct.size()) != d.n_used || *distinct.begin() < 0 || *distinct.rbegin() >= d.n_expert)
        return "top-k experts are not n_used distinct ids in range";
    }
    const auto p_of = [&](std::int32_t x) { return std::sqrt(std::log1p(std::exp(double(d.pool[id][std::size_t(x)])))); };
    double sum = 0;
    for (int k = 0; k < d.n_used; ++k) sum += p_of(ex[std::size_t(k)]);
    sum = std::max(sum, double(sum_floor));
    for (int k = 0; k < d.n_used; ++k) {
      const double want = p_of(ex[std::size_t(k)]) / sum * double(scale);
      if (!(std::fabs(double(w[std::size_t(k)]) - want) <= 13.5 * 0x1p-24 * want))
        return "weight " + std::to_string(k) + " = " + std::to_string(w[std::size_t(k)]) + ", ref " + std::to_string(want);
    }
    return {};
  }

  static op::problem to_device(const entry& e, const op::problem& p, device_mover& m) {
    const std::size_t rows = std::size_t(e.tier);
    auto q = p;
    q.logits = reinterpret_cast<const float*>(m.in(p.logits, 4 * p.logit_stride * rows));
    if (p.bias) q.bias = reinterpret_cast<const float*>(m.in(p.bias, 4 * std::size_t(p.n_expert)));
    q.tid2eid = reinterpret_cast<const std::int32_t*>(m.in(p.tid2eid, 4 * std::size_t(p.n_tokens) * std::size_t(p.n_used)));
    q.tokens = reinterpret_cast<const std::int32_t*>(m.in(p.tokens, 4 * rows));
    q.experts = reinterpret_cast<std::int32_t*>(m.inout(p.experts, 4 * p.out_stride * rows));
    q.weights = reinterpret_cast<float*>(m.inout(p.weights, 4 * p.out_stride * rows));
    return q;
  }
};

}  // namespace ordo::test
