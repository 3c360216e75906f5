/// Test harness for router specs: random cases (256 experts or odd counts, logits of mixed
/// magnitude and sign, deliberate ties, a selection bias or none, a tid2eid table) and a runner
/// that executes an entry with chosen pool rows in chosen slots, NaN-padded logits, poisoned rows
/// past the live count and sentinel-filled outputs, and reports whether any padding was written.
#pragma once
#include <bit>
#include <cstring>
#include <functional>
#include <limits>
#include <stdexcept>
#include <vector>

#include "op_test_inputs.hpp"
#include "ordo/ops/router/entries.hpp"
#include "ordo/ops/router/replay.hpp"

namespace ordo::test::router {

using ops::router::cpu_entry;
using ops::router::problem;
using ops::router::selection;

struct router_case {
  int n_expert = 256, n_used = 6, n_tokens = 0;
  std::vector<float> bias;                   // empty: no bias
  std::vector<std::int32_t> tid2eid;         // [n_tokens][n_used]
  std::vector<std::vector<float>> pool;      // logits rows
  std::vector<std::int32_t> tokens;          // per pool row
};

/// `ties`: a third of each row's logits copy another of its logits and there is no bias, so equal
/// keys are common and the lowest-id rule decides.
inline router_case make_case(int n_expert, int n_used, int pool, bool with_bias, bool ties, std::uint64_t seed) {
  router_case c;
  c.n_expert = n_expert;
  c.n_used = n_used;
  quant::splitmix64 rng{seed};
  if (with_bias && !ties) c.bias = mixed_floats(rng, std::size_t(n_expert), 3);
  c.n_tokens = 1 + int(rng() % 50);
  for (int t = 0; t < c.n_tokens * n_used; ++t) c.tid2eid.push_back(std::int32_t(rng() % std::uint64_t(n_expert)));
  for (int i = 0; i < pool; ++i) {
    auto row = mixed_floats(rng, std::size_t(n_expert), 4);
    if (ties)
      for (int j = 0; j < n_expert / 3; ++j) row[rng() % std::uint64_t(n_expert)] = row[rng() % std::uint64_t(n_expert)];
    c.pool.push_back(std::move(row));
    c.tokens.push_back(std::int32_t(rng() % std::uint64_t(c.n_tokens)));
  }
  return c;
}

struct layout {
  std::size_t logit_pad = 0, out_pad = 0;
};

struct result {
  std::vector<std::vector<std::int32_t>> experts;  // per slot
  std::vector<std::vector<float>> weights;         // per slot
  bool padding_intact = true;
};

using runner = std::function<void(const cpu_entry&, const problem&)>;
inline void run_entry(const cpu_entry& e, const problem& p) { e.run(p); }

inline constexpr std::int32_t id_sentinel = std::int32_t(0x7fc0dea1);

inline problem make_problem(const router_case& c, const float* logits, std::size_t ls, const std::int32_t* tokens,
                            std::int32_t* experts, float* weights, std::size_t os, int rows) {
  return problem{logits, ls, c.bias.empty() ? nullptr : c.bias.data(), c.tid2eid.data(), tokens, c.n_tokens,
                 experts, weights, os, c.n_expert, c.n_used, rows, 1.5f, 6.103515625e-5f};
}

inline result run(const cpu_entry& e, const router_case& c, const std::vector<int>& ids, const layout& l = {},
                  const runner& exec = run_entry) {
  const int n = int(ids.size());
  if (n < 1 || n > e.tier) throw std::invalid_argument("router run: row count outside the tier");
  const std::size_t ls = std::size_t(c.n_expert) + l.logit_pad, os = std::size_t(c.n_used) + l.out_pad;
  const std::size_t rows = std::size_t(e.tier);
  std::vector<float> logits(rows * ls, std::numeric_limits<float>::quiet_NaN());
  std::vector<std::int32_t> tokens(rows, -1);  // rows past n: an id that would read outside tid2eid
  for (int s = 0; s < n; ++s) {
    std::memcpy(logits.data() + std::size_t(s) * ls, c.pool[std::size_t(ids[std::size_t(s)])].data(), std::size_t(c.n_expert) * 4);
    tokens[std::size_t(s)] = c.tokens[std::size_t(ids[std::size_t(s)])];
  }
  std::vector<std::int32_t> experts(rows * os, id_sentinel);
  std::vector<float> weights(rows * os, sentinel());
  exec(e, make_problem(c, logits.data(), ls, tokens.data(), experts.data(), weights.data(), os, n));
  result r;
  for (std::size_t s = 0; s < rows; ++s)
    for (std::size_t j = s < std::size_t(n) ? std::size_t(c.n_used) : 0; j < os; ++j)
      r.padding_intact &= experts[s * os + j] == id_sentinel && is_sentinel(weights[s * os + j]);
  for (int s = 0; s < n; ++s) {
    const auto at = std::ptrdiff_t(std::size_t(s) * os);
    r.experts.emplace_back(experts.begin() + at, experts.begin() + at + c.n_used);
    r.weights.emplace_back(weights.begin() + at, weights.begin() + at + c.n_used);
  }
  return r;
}

inline ops::router::replay::routed replay_row(const cpu_entry& e, const router_case& c, int id) {
  const auto& logits = c.pool[std::size_t(id)];
  const std::int32_t* hash_row =
      e.chooses == selection::hash ? c.tid2eid.data() + std::size_t(c.tokens[std::size_t(id)]) * std::size_t(c.n_used) : nullptr;
  return ops::router::replay::row(logits.data(), c.n_expert, c.bias.empty() ? nullptr : c.bias.data(), hash_row, c.n_used,
                                  1.5f, 6.103515625e-5f);
}

}  // namespace ordo::test::router
