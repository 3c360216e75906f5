/// Test harness for indexer specs: random cases (queries, head weights and key rows of
/// order-sensitive floats; duplicated key rows for exact score ties; each row's visible count)
/// and a runner that executes an entry with chosen pool rows in chosen slots, padded strides,
/// NaN-poisoned padding, keys past every visible count and rows past the live count, NaN-filled
/// workspaces and sentinel-filled outputs, and reports whether any padding was written.
#pragma once
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <stdexcept>
#include <vector>

#include "op_test_inputs.hpp"
#include "ordo/ops/indexer/entries.hpp"
#include "ordo/ops/indexer/replay.hpp"

namespace ordo::test::indexer {

using ops::indexer::cpu_entry;
using ops::indexer::problem;
using ops::indexer::selector;

struct idx_case {
  int n_heads = 1, head_dim = 32, n_keys = 0, top_k = 1;
  float weight_scale = 1.0f;
  std::vector<float> keys;                // [n_keys][head_dim]
  std::vector<std::vector<float>> q, w;   // per pool row
  std::vector<int> n_visible;             // per pool row
};

/// With `ties`, a third of the key rows copy another key row, so equal scores are common.
inline idx_case make_case(int n_heads, int head_dim, int n_keys, int top_k, int pool, bool ties, std::uint64_t seed) {
  idx_case c;
  c.n_heads = n_heads, c.head_dim = head_dim, c.n_keys = n_keys, c.top_k = top_k;
  c.weight_scale = float(1.0 / std::sqrt(double(head_dim) * n_heads));
  quant::splitmix64 rng{seed};
  c.keys = mixed_floats(rng, std::size_t(n_keys) * std::size_t(head_dim), 3);
  if (ties && n_keys > 1)
    for (int j = 0; j < n_keys / 3; ++j) {
      const auto from = rng() % std::uint64_t(n_keys), to = rng() % std::uint64_t(n_keys);
      std::memcpy(c.keys.data() + to * std::uint64_t(head_dim), c.keys.data() + from * std::uint64_t(head_dim), std::size_t(head_dim) * 4);
    }
  for (int i = 0; i < pool; ++i) {
    c.q.push_back(mixed_floats(rng, std::size_t(n_heads) * std::size_t(head_dim), 3));
    c.w.push_back(mixed_floats(rng, std::size_t(n_heads), 3));
    c.n_visible.push_back(n_keys == 0 ? 0 : int(rng() % std::uint64_t(n_keys + 1)));
  }
  return c;
}

struct layout {
  std::size_t q_pad = 0, w_pad = 0, key_pad = 0, sel_pad = 0, score_pad = 0;
  int extra_keys = 0;  // key rows past every visible count (NaN)
};

struct result {
  std::vector<std::vector<float>> scores;          // per slot, n_visible
  std::vector<std::vector<std::int32_t>> selected;  // per slot
  bool padding_intact = true;
};

using runner = std::function<void(const cpu_entry&, const problem&)>;
inline void run_entry(const cpu_entry& e, const problem& p) { e.run(p); }

inline constexpr std::int32_t id_sentinel = std::int32_t(0x7fc0dea1);

inline result run(const cpu_entry& e, const idx_case& c, const std::vector<int>& ids, const layout& l = {},
                  const runner& exec = run_entry) {
  const int n = int(ids.size());
  if (n < 1 || n > e.tier) throw std::invalid_argument("indexer run: row count outside the tier");
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::size_t width = std::size_t(c.n_heads) * std::size_t(c.head_dim), tier_rows = std::size_t(e.tier);
  const std::size_t qs = width + l.q_pad, ws = std::size_t(c.n_heads) + l.w_pad, ks = std::size_t(c.head_dim) + l.key_pad;
  const int n_keys = c.n_keys + l.extra_keys;
  const std::size_t ss = std::size_t(c.top_k) + l.sel_pad, cs = std::size_t(n_keys) + l.score_pad;
  std::vector<float> keys(std::size_t(n_keys) * ks, nan);
  for (int r = 0; r < c.n_keys; ++r)
    std::memcpy(keys.data() + std::size_t(r) * ks, c.keys.data() + std::size_t(r) * std::size_t(c.head_dim), std::size_t(c.head_dim) * 4);
  std::vector<float> q(tier_rows * qs, nan), w(tier_rows * ws, nan);
  std::vector<std::int32_t> n_visible(tier_rows, n_keys);
  for (int s = 0; s < n; ++s) {
    const auto id = std::size_t(ids[std::size_t(s)]);
    std::memcpy(q.data() + std::size_t(s) * qs, c.q[id].data(), width * 4);
    std::memcpy(w.data() + std::size_t(s) * ws, c.w[id].data(), std::size_t(c.n_heads) * 4);
    n_visible[std::size_t(s)] = c.n_visible[id];
  }
  std::vector<std::int32_t> selected(tier_rows * ss, id_sentinel), n_selected(tier_rows, id_sentinel);
  std::vector<float> scores(tier_rows * cs, sentinel()), q_fp4(tier_rows * width, nan);
  problem p{q.data(), qs, w.data(), ws, c.weight_scale, keys.data(), ks, n_keys, n_visible.data(), c.top_k,
            selected.data(), ss, n_selected.data(), scores.data(), cs, q_fp4.data(), nullptr, 0, c.n_heads, c.head_dim, n};
  std::vector<std::int32_t> survivors(tier_rows * ops::indexer::survivor_capacity(p) + 1, -7);
  p.survivors = survivors.data();
  p.survivor_stride = ops::indexer::survivor_capacity(p);
  exec(e, p);
  result r;
  for (int s = 0; s < n; ++s) {
    const int v = n_visible[std::size_t(s)], k = n_selected[std::size_t(s)];
    r.padding_intact &= k == std::min(v, c.top_k);
    if (k < 0 || k > c.top_k) return r.padding_intact = false, r;
    r.scores.emplace_back(scores.begin() + std::ptrdiff_t(std::size_t(s) * cs), scores.begin() + std::ptrdiff_t(std::size_t(s) * cs + std::size_t(v)));
    r.selected.emplace_back(selected.begin() + std::ptrdiff_t(std::size_t(s) * ss), selected.begin() + std::ptrdiff_t(std::size_t(s) * ss + std::size_t(k)));
  }
  for (std::size_t s = 0; s < tier_rows; ++s) {
    const bool live = s < std::size_t(n);
    for (std::size_t j = live ? std::size_t(n_selected[s]) : 0; j < ss; ++j) r.padding_intact &= selected[s * ss + j] == id_sentinel;
    for (std::size_t j = live ? std::size_t(n_visible[s]) : 0; j < cs; ++j) r.padding_intact &= is_sentinel(scores[s * cs + j]);
    if (!live) r.padding_intact &= n_selected[s] == id_sentinel;
  }
  r.padding_intact &= survivors.back() == -7;
  return r;
}

inline ops::indexer::replay::row_result replay_row(const idx_case& c, int id) {
  return ops::indexer::replay::row(c.q[std::size_t(id)].data(), c.w[std::size_t(id)].data(), c.weight_scale, c.keys.data(),
                                   std::size_t(c.head_dim), c.n_visible[std::size_t(id)], c.n_heads, c.head_dim, c.top_k);
}

}  // namespace ordo::test::indexer
