/// Test harness of sampling for the generic drivers (tests/property/drivers): logit rows of mixed
/// magnitude and sign, planted ties of the maximum, sprinkled NaNs, all-equal rows, and for mode
/// sample soft rows whose softmax spreads over many tokens, with repeated values so that ties
/// straddle the top-k and top-p cuts; settings that exercise every filter and a position per pool
/// row. Runs an entry with chosen pool rows in chosen slots, padded strides and rows past the live
/// count poisoned with +inf (a value argmax would pick if it read it) or NaN, and sentinel tokens
/// past the live rows; the host replay (ops/sampling/replay.hpp) and a double-precision oracle.
/// A slot's bytes: its token id (int32).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "../drivers/data.hpp"
#include "../drivers/properties.hpp"
#include "ordo/ops/sampling/philox.hpp"
#include "ordo/ops/sampling/replay.hpp"
#include "ordo/ops/sampling/sampling.hpp"

namespace ordo::test {

template <>
struct harness<ops::sampling::op> {
  using op = ops::sampling::op;
  using entry = registry::entry<op>;
  using mode = ops::sampling::mode;
  using settings = ops::sampling::settings;
  static constexpr int order_axis = -1;    // argmax is exact in any order; sample has one order only
  static constexpr int untiered_rows = 1;  // unused: every sampling spec has a tier
  static constexpr int ds4_vocab = 129280;

  enum class row_kind { mixed, planted_ties, with_nans, all_equal, soft, soft_ties };

  static std::vector<float> mixed_row(quant::splitmix64& rng, int n, int exp_range) {
    std::vector<float> z(static_cast<std::size_t>(n));
    for (auto& x : z) x = mixed_float(rng, exp_range);
    return z;
  }

  static std::vector<float> make_row(int n_vocab, row_kind kind, quant::splitmix64& rng) {
    if (kind == row_kind::soft || kind == row_kind::soft_ties) {
      auto z = mixed_row(rng, n_vocab, 2);  // |z| in [2^-2, 2^3): many tokens matter
      if (kind == row_kind::soft_ties)
        for (auto& x : z) x = z[rng() % std::uint64_t(std::min(n_vocab, 40))];  // ~40 distinct values
      if (rng() % 3 == 0) z[rng() % std::uint64_t(n_vocab)] = -std::numeric_limits<float>::infinity();
      if (rng() % 3 == 0) z[rng() % std::uint64_t(n_vocab)] = std::numeric_limits<float>::quiet_NaN();
      return z;
    }
    auto z = mixed_row(rng, n_vocab, 6);
    if (kind == row_kind::planted_ties) {
      const float top = 200.0f + float(rng() % 100) / 7.0f;  // above every mixed float (|x| < 2^7)
      for (int k = 0; k < 2 + int(rng() % 5); ++k) z[rng() % std::uint64_t(n_vocab)] = top;
    } else if (kind == row_kind::with_nans) {
      for (int k = 0; k < 1 + n_vocab / 50; ++k) z[rng() % std::uint64_t(n_vocab)] = std::numeric_limits<float>::quiet_NaN();
    } else if (kind == row_kind::all_equal) {
      std::fill(z.begin(), z.end(), z[0]);
    }
    return z;
  }

  struct data {
    int n_vocab = 0;
    std::vector<std::vector<float>> pool;
    settings sampler{};
    std::vector<std::uint64_t> positions;  // [pool] the token position of each pool row
  };

  /// Settings that exercise every filter: a temperature in [0.25, 2] (sometimes 0: greedy), top-k
  /// off or 1..64, top-p off or in (0, 1), min-p off or up to 0.2, a random 64-bit seed.
  static settings make_settings(quant::splitmix64& rng) {
    settings s;
    s.temperature = rng() % 8 == 0 ? 0.0f : 0.25f + float(rng() % 1000) * (1.75f / 1000.0f);
    s.top_k = rng() % 3 == 0 ? 0 : 1 + int(rng() % 64);
    s.top_p = rng() % 3 == 0 ? 1.0f : float(1 + rng() % 999) / 1000.0f;
    s.min_p = rng() % 2 == 0 ? 0.0f : float(rng() % 200) / 1000.0f;
    s.seed = rng();
    return s;
  }

  static data make(int n_vocab, int pool, std::uint64_t seed, mode m = mode::greedy) {
    data d{n_vocab, {}, {}, {}};
    quant::splitmix64 rng{seed};
    if (m == mode::sample) d.sampler = make_settings(rng);
    for (int i = 0; i < pool; ++i) {
      const auto kind = m == mode::sample && rng() % 3 != 0 ? row_kind(4 + rng() % 2) : row_kind(rng() % 4);
      d.pool.push_back(make_row(n_vocab, kind, rng));
      d.positions.push_back(rng() % 4 == 0 ? rng() : rng() % 100000);
    }
    return d;
  }

  /// Greedy: DS4's 129,280 logits on a quarter of the cases (the full tier and partial ones), odd sizes up
  /// to 3000 otherwise. Sample: DS4's vocabulary on case 6 (the full tier) of every property run,
  /// sizes up to 1000 otherwise, including ones below the 256 chunks (empty chunks): a row with
  /// top-p makes ~100 passes over its logits, so more full-size cases would cost seconds each on
  /// the CPU executor (tests/unit/ops/sampling checks more full-size rows).
  static data draw(const entry& e, int pool, int c) {
    const bool sample = e.info.picks == mode::sample;
    const bool full = sample ? c == 6 : c % 8 == 0 || c % 8 == 3;
    const int n_vocab = full ? ds4_vocab : detail::uniform(1, sample ? 1000 : 3000);
    return make(n_vocab, pool, *rc::gen::resize(100, rc::gen::arbitrary<std::uint64_t>()), e.info.picks);
  }

  struct layout {
    std::size_t pad = 0;                                   // extra logits per row
    float poison = std::numeric_limits<float>::infinity();  // padding and rows past the live count
  };
  static layout tight_layout() { return {}; }
  static layout draw_padded_layout() {
    return {std::size_t(detail::uniform(1, 64)),
            detail::uniform(0, 1) ? std::numeric_limits<float>::infinity() : std::numeric_limits<float>::quiet_NaN()};
  }

  static constexpr std::int32_t token_sentinel = std::int32_t(0x7fc0dea1);

  static run_result run(const backend& be, const entry& e, const data& d, const std::vector<int>& ids, const layout& l) {
    const int n = int(ids.size());
    if (n < 1 || n > e.tier) throw std::invalid_argument("sampling run: row count outside the tier");
    const std::size_t stride = std::size_t(d.n_vocab) + l.pad, rows = std::size_t(e.tier);
    std::vector<float> z(rows * stride, l.poison);
    std::vector<std::uint64_t> positions(rows, ~std::uint64_t(0));
    for (int s = 0; s < n; ++s) {
      const auto id = std::size_t(ids[std::size_t(s)]);
      std::memcpy(z.data() + std::size_t(s) * stride, d.pool.at(id).data(), std::size_t(d.n_vocab) * 4);
      positions[std::size_t(s)] = d.positions[id];
    }
    std::vector<std::int32_t> tokens(rows + 1, token_sentinel);  // + 1: a guard past the last row
    be.run(e, {z.data(), stride, tokens.data(), d.n_vocab, n, d.sampler, positions.data()});
    run_result r;
    for (std::size_t s = std::size_t(n); s < tokens.size(); ++s) r.padding_intact &= tokens[s] == token_sentinel;
    for (int s = 0; s < n; ++s) r.rows.push_back(bytes_of(tokens[std::size_t(s)]));
    return r;
  }

  static std::vector<std::byte> bytes_of(std::int32_t token) {
    std::vector<std::byte> b(4);
    std::memcpy(b.data(), &token, 4);
    return b;
  }
  static std::int32_t token_of(const std::vector<std::byte>& row) {
    std::int32_t t;
    std::memcpy(&t, row.data(), 4);
    return t;
  }
  /// The tokens of a run's live slots.
  static std::vector<std::int32_t> tokens(const run_result& r) {
    std::vector<std::int32_t> t;
    for (const auto& row : r.rows) t.push_back(token_of(row));
    return t;
  }

  /// What the definition says pool row `id` samples under mode m (replay.hpp).
  static std::int32_t replay_token(mode m, const data& d, int id) {
    const float* z = d.pool[std::size_t(id)].data();
    return m == mode::greedy ? ops::sampling::replay::argmax(z, d.n_vocab)
                             : ops::sampling::replay::sample(z, d.n_vocab, d.sampler, d.positions[std::size_t(id)]);
  }
  static std::vector<std::byte> replay(const entry& e, const data& d, int pool_row) {
    return bytes_of(replay_token(e.info.picks, d, pool_row));
  }

  /// The oracle, from the definition (problem.hpp) in double precision:
  ///   greedy (mode greedy, T <= 0, or a best logit that is not finite): the token holds the row's
  ///   largest number logit and no lower id holds an equal one (an all-NaN row: id 0);
  ///   sample: the token has a number logit above −inf; its rank (larger logit, then lower id) is
  ///   below top-k; the double weights q = e^((z − z_max)/T) of the ranks before it sum to less
  ///   than top_p × the top-k set's (the token that crosses is kept); q_token >= min_p; and where
  ///   no token lies within the rounding margin of a cut, the uniform u of (seed, position) lies
  ///   in the token's interval [Σ_{v<t} q_v, Σ_{v<=t} q_v) / Σ q of the kept set.
  /// Margins, relative: a float weight errs by <= 2u·|ln w| (the argument's two roundings, times
  /// |d e^x / dx · x / e^x| = |x|) + 2u (exp_f32's ~1 ulp) <= 3u absolutely, since w·|ln w| <= 1/e;
  /// a float sum of n such weights in chunks of L then over 256 chunk sums adds <= (L + 256)·u of
  /// the total (>= 1: the best token weighs 1), so a cumulative sum is within
  /// δ = (3n + L + 256)·u of the total; the checks use 2δ. min-p's margin: ln w >= ln min_p >=
  /// ln 10^-3, so 2u·7 + 2u = 16u relative; 32u used.
  static std::string oracle(const entry& e, const data& d, int pool_row, const std::vector<std::byte>& got) {
    const std::vector<float>& z = d.pool[std::size_t(pool_row)];
    const int n = d.n_vocab, t = token_of(got);
    if (t < 0 || t >= n) return "token " + std::to_string(t) + " outside the vocabulary";
    int best = -1;  // the lowest id of the largest number logit
    for (int v = 0; v < n; ++v)
      if (!std::isnan(z[std::size_t(v)]) && (best < 0 || double(z[std::size_t(v)]) > double(z[std::size_t(best)]))) best = v;
    const settings& s = d.sampler;
    const bool greedy = e.info.picks == mode::greedy || !(s.temperature > 0.0f) || best < 0 || !std::isfinite(z[std::size_t(best)]);
    if (greedy) {
      const int want = best < 0 ? 0 : best;
      return t == want ? "" : "greedy token " + std::to_string(t) + ", the first largest logit is at " + std::to_string(want);
    }
    const double zt = z[std::size_t(t)];
    if (std::isnan(zt) || zt == -std::numeric_limits<double>::infinity()) return "drew a NaN or -inf logit";
    // The ranked order: larger logit first, then the lower id.
    std::vector<int> ranked;
    for (int v = 0; v < n; ++v)
      if (!std::isnan(z[std::size_t(v)])) ranked.push_back(v);
    std::stable_sort(ranked.begin(), ranked.end(), [&](int a, int b) { return double(z[std::size_t(a)]) > double(z[std::size_t(b)]); });
    const std::size_t rank = std::size_t(std::find(ranked.begin(), ranked.end(), t) - ranked.begin());
    const std::size_t k = s.top_k > 0 ? std::min(ranked.size(), std::size_t(s.top_k)) : ranked.size();
    if (rank >= k) return "token " + std::to_string(t) + " has rank " + std::to_string(rank) + ", outside top-k " + std::to_string(k);
    const double z_max = z[std::size_t(best)], T = s.temperature;
    std::vector<double> q(std::size_t(n), 0.0);  // the top-k set's weights
    double topk_total = 0;
    for (std::size_t i = 0; i < k; ++i) {
      const int v = ranked[i];
      q[std::size_t(v)] = std::exp((double(z[std::size_t(v)]) - z_max) / T);
      topk_total += q[std::size_t(v)];
    }
    const double u = 0x1p-24, L = double((n + 255) / 256);
    const double margin = 2 * (3.0 * n + L + 256) * u * topk_total;
    // top-p: the kept prefix ends at the first rank whose preceding mass reaches the target.
    bool ambiguous = false;
    std::size_t kept = k;
    if (s.top_p < 1.0f) {
      const double target = double(s.top_p) * topk_total;
      double before = 0;
      for (std::size_t i = 0; i < k; ++i) {
        ambiguous |= std::fabs(before - target) <= margin;
        if (before >= target) {
          kept = i;
          break;
        }
        before += q[std::size_t(ranked[i])];
      }
      double mass_before_t = 0;
      for (std::size_t i = 0; i < rank; ++i) mass_before_t += q[std::size_t(ranked[i])];
      if (!(mass_before_t < target + margin))
        return "token rank " + std::to_string(rank) + " lies past the top-p prefix (mass before it " + std::to_string(mass_before_t) +
               ", target " + std::to_string(target) + ")";
    }
    for (std::size_t i = kept; i < k; ++i) q[std::size_t(ranked[i])] = 0;
    if (s.min_p > 0.0f) {
      for (std::size_t i = 0; i < kept; ++i) {
        double& w = q[std::size_t(ranked[i])];
        ambiguous |= std::fabs(w - double(s.min_p)) <= 32 * u * double(s.min_p);
        if (w < double(s.min_p)) w = 0;
      }
      const double wt = std::exp((zt - z_max) / T);
      if (!(wt >= double(s.min_p) * (1 - 32 * u))) return "token weight " + std::to_string(wt) + " below min-p " + std::to_string(s.min_p);
    }
    if (ambiguous) return {};  // a cut within the rounding margin: the checks above still hold
    if (q[std::size_t(t)] == 0) return "token " + std::to_string(t) + " is filtered out in double precision";
    double lo = 0, total = 0;
    for (int v = 0; v < n; ++v) {
      if (v < t) lo += q[std::size_t(v)];
      total += q[std::size_t(v)];
    }
    const double draw = double(ops::sampling::uniform_of(s.seed, d.positions[std::size_t(pool_row)]));
    const double slack = margin / total;
    if (!(draw >= lo / total - slack && draw <= (lo + q[std::size_t(t)]) / total + slack))
      return "uniform " + std::to_string(draw) + " outside token " + std::to_string(t) + "'s interval [" + std::to_string(lo / total) +
             ", " + std::to_string((lo + q[std::size_t(t)]) / total) + ") ± " + std::to_string(slack);
    return {};
  }

  static op::problem to_device(const entry& e, const op::problem& p, device_mover& m) {
    const std::size_t rows = std::size_t(e.tier);
    auto q = p;
    q.logits = reinterpret_cast<const float*>(m.in(p.logits, 4 * p.logit_stride * rows));
    if (p.positions) q.positions = reinterpret_cast<const std::uint64_t*>(m.in(p.positions, 8 * rows));
    q.tokens = reinterpret_cast<std::int32_t*>(m.inout(p.tokens, 4 * (rows + 1)));  // the guard travels too
    return q;
  }
};

}  // namespace ordo::test
