/// Test harness for sampling specs: random logit rows (mixed magnitude and sign, planted ties of
/// the maximum, sprinkled NaNs, all-equal rows, and for mode sample soft rows whose softmax spreads
/// over many tokens, with repeated values so that ties straddle the top-k and top-p cuts), each
/// pool row with its own token position, and a runner that executes an entry with chosen pool rows
/// in chosen slots, +inf-padded strides, +inf rows past the live count and sentinel tokens,
/// reporting whether any token past the live rows was written.
#pragma once
#include <cstring>
#include <functional>
#include <limits>
#include <stdexcept>
#include <vector>

#include "op_test_inputs.hpp"
#include "ordo/ops/sampling/entries.hpp"
#include "ordo/ops/sampling/replay.hpp"

namespace ordo::test::sampling {

using ops::sampling::cpu_entry;
using ops::sampling::problem;

enum class row_kind { mixed, planted_ties, with_nans, all_equal, soft, soft_ties };

inline std::vector<float> make_row(int n_vocab, row_kind kind, quant::splitmix64& rng) {
  if (kind == row_kind::soft || kind == row_kind::soft_ties) {
    auto z = mixed_floats(rng, std::size_t(n_vocab), 2);  // |z| in [2^-2, 2^3): many tokens matter
    if (kind == row_kind::soft_ties)
      for (auto& x : z) x = z[rng() % std::uint64_t(std::min(n_vocab, 40))];  // ~40 distinct values
    if (rng() % 3 == 0) z[rng() % std::uint64_t(n_vocab)] = -std::numeric_limits<float>::infinity();
    if (rng() % 3 == 0) z[rng() % std::uint64_t(n_vocab)] = std::numeric_limits<float>::quiet_NaN();
    return z;
  }
  auto z = mixed_floats(rng, std::size_t(n_vocab), 6);
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

struct sampling_case {
  int n_vocab = 0;
  std::vector<std::vector<float>> pool;
  ops::sampling::settings sampler{};
  std::vector<std::uint64_t> positions;  // [pool] the token position of each pool row
};

/// Settings that exercise every filter: a temperature in [0.25, 2] (sometimes 0: greedy), top-k
/// off or 1..64, top-p off or in (0, 1), min-p off or up to 0.2, a random 64-bit seed.
inline ops::sampling::settings make_settings(quant::splitmix64& rng) {
  ops::sampling::settings s;
  s.temperature = rng() % 8 == 0 ? 0.0f : 0.25f + float(rng() % 1000) * (1.75f / 1000.0f);
  s.top_k = rng() % 3 == 0 ? 0 : 1 + int(rng() % 64);
  s.top_p = rng() % 3 == 0 ? 1.0f : float(1 + rng() % 999) / 1000.0f;
  s.min_p = rng() % 2 == 0 ? 0.0f : float(rng() % 200) / 1000.0f;
  s.seed = rng();
  return s;
}

inline sampling_case make_case(int n_vocab, int pool, std::uint64_t seed, ops::sampling::mode m = ops::sampling::mode::greedy) {
  sampling_case c{n_vocab, {}, {}, {}};
  quant::splitmix64 rng{seed};
  if (m == ops::sampling::mode::sample) c.sampler = make_settings(rng);
  for (int i = 0; i < pool; ++i) {
    const auto kind = m == ops::sampling::mode::sample && rng() % 3 != 0 ? row_kind(4 + rng() % 2) : row_kind(rng() % 4);
    c.pool.push_back(make_row(n_vocab, kind, rng));
    c.positions.push_back(rng() % 4 == 0 ? rng() : rng() % 100000);
  }
  return c;
}

/// What the definition says pool row `id` of case c samples (replay.hpp), for an entry of mode m.
inline std::int32_t replay_token(ops::sampling::mode m, const sampling_case& c, int id) {
  const float* z = c.pool[std::size_t(id)].data();
  return m == ops::sampling::mode::greedy ? ops::sampling::replay::argmax(z, c.n_vocab)
                                          : ops::sampling::replay::sample(z, c.n_vocab, c.sampler, c.positions[std::size_t(id)]);
}

struct result {
  std::vector<std::int32_t> tokens;
  bool padding_intact = true;
};

using runner = std::function<void(const cpu_entry&, const problem&)>;
inline void run_entry(const cpu_entry& e, const problem& p) { e.run(p); }

inline constexpr std::int32_t token_sentinel = std::int32_t(0x7fc0dea1);

inline result run(const cpu_entry& e, const sampling_case& c, const std::vector<int>& ids, std::size_t pad = 0,
                  const runner& exec = run_entry) {
  const int n = int(ids.size());
  if (n < 1 || n > e.tier) throw std::invalid_argument("sampling run: row count outside the tier");
  const std::size_t stride = std::size_t(c.n_vocab) + pad;
  std::vector<float> z(std::size_t(e.tier) * stride, std::numeric_limits<float>::infinity());  // +inf would win if read
  for (int s = 0; s < n; ++s) std::memcpy(z.data() + std::size_t(s) * stride, c.pool[std::size_t(ids[std::size_t(s)])].data(), std::size_t(c.n_vocab) * 4);
  std::vector<std::int32_t> tokens(std::size_t(e.tier) + 1, token_sentinel);
  std::vector<std::uint64_t> positions(std::size_t(e.tier), ~std::uint64_t(0));
  for (int s = 0; s < n; ++s)
    positions[std::size_t(s)] = c.positions.empty() ? 0 : c.positions[std::size_t(ids[std::size_t(s)])];
  exec(e, problem{z.data(), stride, tokens.data(), c.n_vocab, n, c.sampler, positions.data()});
  result r;
  r.tokens.assign(tokens.begin(), tokens.begin() + n);
  for (std::size_t s = std::size_t(n); s < tokens.size(); ++s) r.padding_intact &= tokens[s] == token_sentinel;
  return r;
}

}  // namespace ordo::test::sampling
