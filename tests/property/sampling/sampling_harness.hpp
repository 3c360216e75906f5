/// Test harness for sampling specs: random logit rows (mixed magnitude and sign, planted ties of
/// the maximum, sprinkled NaNs, all-equal rows) and a runner that executes an entry with chosen
/// pool rows in chosen slots, NaN-padded strides, NaN rows past the live count and sentinel
/// tokens, reporting whether any token past the live rows was written.
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

enum class row_kind { mixed, planted_ties, with_nans, all_equal };

inline std::vector<float> make_row(int n_vocab, row_kind kind, quant::splitmix64& rng) {
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
};

inline sampling_case make_case(int n_vocab, int pool, std::uint64_t seed) {
  sampling_case c{n_vocab, {}};
  quant::splitmix64 rng{seed};
  for (int i = 0; i < pool; ++i) c.pool.push_back(make_row(n_vocab, row_kind(rng() % 4), rng));
  return c;
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
  exec(e, problem{z.data(), stride, tokens.data(), c.n_vocab, n});
  result r;
  r.tokens.assign(tokens.begin(), tokens.begin() + n);
  for (std::size_t s = std::size_t(n); s < tokens.size(); ++s) r.padding_intact &= tokens[s] == token_sentinel;
  return r;
}

}  // namespace ordo::test::sampling
