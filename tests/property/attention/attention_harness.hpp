/// Test harness for attention specs: random cases (heads of order-sensitive floats, a KV table,
/// each query row's list of entries, invisible entries or none, DS4 and odd shapes) and a runner
/// that executes an entry with chosen pool rows in chosen slots, padded strides, NaN-poisoned
/// padding, KV rows and list tails no visible entry names, poisoned rows past the live count, a
/// NaN-filled workspace and sentinel-filled outputs, and reports whether any padding was written.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <stdexcept>
#include <vector>

#include "op_test_inputs.hpp"
#include "ordo/ops/attention/entries.hpp"
#include "ordo/ops/attention/replay.hpp"

namespace ordo::test::attention {

using ops::attention::cpu_entry;
using ops::attention::problem;
using ops::attention::schedule;
using ops::attention::visibility;

struct attn_case {
  int n_heads = 1, head_dim = 32, n_kv = 1;
  float scale = 1.0f;
  std::vector<float> sinks;                       // [n_heads]
  std::vector<float> kv;                          // [n_kv][head_dim], dense
  std::vector<std::vector<float>> pool;           // query rows of n_heads * head_dim
  std::vector<std::vector<std::int32_t>> lists;   // per pool row: KV rows, −1 invisible
  int width() const { return n_heads * head_dim; }
};

/// Values have full mantissas and exponents over 2^-2..2^2 (q scaled by 2^-3, exactly), so the
/// logits spread over a range where the softmax weights matter; sinks over 2^-4..2^4. A list has
/// 0..max_list entries drawn from the table (repeats allowed); with `invisible`, about a quarter
/// of them are −1.
inline attn_case make_case(int n_heads, int head_dim, int n_kv, int pool, int max_list, bool invisible,
                           std::uint64_t seed) {
  attn_case c;
  c.n_heads = n_heads;
  c.head_dim = head_dim;
  c.n_kv = n_kv;
  c.scale = float(1.0 / std::sqrt(double(head_dim)));
  quant::splitmix64 rng{seed};
  c.sinks = mixed_floats(rng, std::size_t(n_heads), 4);
  c.kv = mixed_floats(rng, std::size_t(n_kv) * std::size_t(head_dim), 2);
  for (int i = 0; i < pool; ++i) {
    auto q = mixed_floats(rng, std::size_t(c.width()), 2);
    for (auto& v : q) v *= 0.125f;
    c.pool.push_back(std::move(q));
    std::vector<std::int32_t> list(std::size_t(rng() % std::uint64_t(max_list + 1)));
    for (auto& e : list) e = invisible && rng() % 4 == 0 ? -1 : std::int32_t(rng() % std::uint64_t(n_kv));
    c.lists.push_back(std::move(list));
  }
  return c;
}

struct layout {
  std::size_t q_pad = 0, kv_pad = 0, out_pad = 0, gather_pad = 0;  // extra floats / entries per row, poisoned
  int extra_listed = 0;  // max_listed past the longest live list (the split grid's extra chunks)
};

struct result {
  std::vector<std::vector<float>> y;  // per slot
  bool padding_intact = true;
};

/// Runs a spec. The CPU executor is the default; a test can pass another runner (a mutant).
using runner = std::function<void(const cpu_entry&, const problem&)>;
inline void run_entry(const cpu_entry& e, const problem& p) { e.run(p); }

inline result run(const cpu_entry& e, const attn_case& c, const std::vector<int>& ids, const layout& l = {},
                  const runner& exec = run_entry) {
  const int n = int(ids.size());
  if (n < 1 || n > e.tier) throw std::invalid_argument("attention run: row count outside the tier");
  const std::size_t w = std::size_t(c.width()), hd = std::size_t(c.head_dim);
  const std::size_t qs = w + l.q_pad, os = w + l.out_pad, ks = hd + l.kv_pad;
  const std::size_t tier_rows = std::size_t(e.tier);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  int longest = 0;
  for (int id : ids) longest = std::max(longest, int(c.lists[std::size_t(id)].size()));
  const int max_listed = longest + l.extra_listed;
  const std::size_t gs = std::size_t(max_listed) + l.gather_pad;
  // Two poisoned rows past the table: list tails and rows past the live count point at them.
  const std::int32_t poisoned_row = c.n_kv;
  std::vector<float> kv((std::size_t(c.n_kv) + 2) * ks, nan);
  for (int r = 0; r < c.n_kv; ++r) std::memcpy(kv.data() + std::size_t(r) * ks, c.kv.data() + std::size_t(r) * hd, hd * 4);
  std::vector<float> q(tier_rows * qs, nan);
  std::vector<std::int32_t> gather(tier_rows * gs + 1, poisoned_row);
  std::vector<std::int32_t> n_listed(tier_rows, std::int32_t(max_listed));
  for (int s = 0; s < n; ++s) {
    const auto id = std::size_t(ids[std::size_t(s)]);
    std::memcpy(q.data() + std::size_t(s) * qs, c.pool[id].data(), w * 4);
    std::copy(c.lists[id].begin(), c.lists[id].end(), gather.begin() + std::ptrdiff_t(std::size_t(s) * gs));
    n_listed[std::size_t(s)] = std::int32_t(c.lists[id].size());
  }
  std::vector<float> out(tier_rows * os, sentinel());
  problem p{q.data(), qs, kv.data(), ks, c.n_kv + 2, gather.data(), gs, n_listed.data(), max_listed,
            c.sinks.data(), c.scale, out.data(), os, nullptr, c.n_heads, c.head_dim, n};
  std::vector<float> workspace(e.workspace(p) + 1, nan);
  p.workspace = workspace.data();
  exec(e, p);
  result r;
  for (int s = 0; s < n; ++s)
    r.y.emplace_back(out.begin() + std::ptrdiff_t(std::size_t(s) * os), out.begin() + std::ptrdiff_t(std::size_t(s) * os + w));
  for (std::size_t s = 0; s < tier_rows; ++s)
    for (std::size_t j = s < std::size_t(n) ? w : 0; j < os; ++j) r.padding_intact &= is_sentinel(out[s * os + j]);
  r.padding_intact &= std::isnan(workspace.back());
  return r;
}

/// What the independent replay says slot s of a run of pool row `id` must hold.
inline std::vector<float> replay_row(const cpu_entry& e, const attn_case& c, int id) {
  return ops::attention::replay::row(c.pool[std::size_t(id)].data(), c.n_heads, c.head_dim, c.kv.data(),
                                     std::size_t(c.head_dim), c.lists[std::size_t(id)], c.sinks.data(), c.scale, e.chunk);
}

}  // namespace ordo::test::attention
