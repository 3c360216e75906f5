/// Test harness for rope specs: random cases (order-sensitive rows, DS4 and odd head shapes, real
/// position tables of plain and YaRN layers) and a runner that rotates chosen pool rows in chosen
/// slots of a NaN-padded buffer and reports whether anything outside the rotated tails changed.
#pragma once
#include <cstring>
#include <functional>
#include <limits>
#include <stdexcept>
#include <vector>

#include "op_test_inputs.hpp"
#include "ordo/ops/rope/entries.hpp"
#include "ordo/ops/rope/replay.hpp"
#include "ordo/ops/rope/table.hpp"

namespace ordo::test::rope {

using ops::rope::cpu_entry;
using ops::rope::direction;
using ops::rope::problem;

struct rope_case {
  int n_heads = 1, head_dim = 64, n_rot = 64;
  std::vector<std::vector<float>> pool;    // rows of n_heads * head_dim
  std::vector<std::vector<float>> tables;  // per pool row: n_rot floats (cos, sin pairs)
  int width() const { return n_heads * head_dim; }
};

/// Pool rows at random positions up to 2^20, on a ratio-0 (plain) or compressed (YaRN) layer.
inline rope_case make_case(int n_heads, int head_dim, int n_rot, int pool, bool yarn, std::uint64_t seed) {
  rope_case c{n_heads, head_dim, n_rot, {}, {}};
  quant::splitmix64 rng{seed};
  ops::rope::angles a{.n_rot = n_rot, .base = yarn ? 160000.0 : 10000.0, .yarn = yarn};
  for (int i = 0; i < pool; ++i) {
    c.pool.push_back(mixed_floats(rng, std::size_t(c.width())));
    std::vector<float> t(static_cast<std::size_t>(n_rot));
    a.fill(double(rng() % (1u << 20)), t.data());
    c.tables.push_back(std::move(t));
  }
  return c;
}

struct layout {
  std::size_t x_pad = 0, table_pad = 0;  // extra floats per row, NaN
};

struct result {
  std::vector<std::vector<float>> y;  // per slot, the whole row after rotation
  bool untouched_intact = true;       // padding, rows past n and non-rotated dims kept their bits
};

using runner = std::function<void(const cpu_entry&, const problem&)>;
inline void run_entry(const cpu_entry& e, const problem& p) { e.run(p); }

inline result run(const cpu_entry& e, const rope_case& c, const std::vector<int>& ids, const layout& l = {},
                  const runner& exec = run_entry) {
  const int n = int(ids.size());
  if (n < 1 || n > e.tier) throw std::invalid_argument("rope run: row count outside the tier");
  const std::size_t w = std::size_t(c.width()), xs = w + l.x_pad, ts = std::size_t(c.n_rot) + l.table_pad;
  std::vector<float> x(std::size_t(e.tier) * xs, sentinel());
  std::vector<float> t(std::size_t(e.tier) * ts, std::numeric_limits<float>::quiet_NaN());
  for (int s = 0; s < n; ++s) {
    std::memcpy(x.data() + std::size_t(s) * xs, c.pool[std::size_t(ids[std::size_t(s)])].data(), w * 4);
    std::memcpy(t.data() + std::size_t(s) * ts, c.tables[std::size_t(ids[std::size_t(s)])].data(), std::size_t(c.n_rot) * 4);
  }
  const std::vector<float> before = x;
  exec(e, problem{x.data(), xs, t.data(), ts, c.n_heads, c.head_dim, c.n_rot, n});
  result r;
  for (std::size_t s = 0; s < std::size_t(e.tier); ++s)
    for (std::size_t j = 0; j < xs; ++j) {
      const bool rotated = s < std::size_t(n) && j < w && int(j % std::size_t(c.head_dim)) >= c.head_dim - c.n_rot;
      if (!rotated) r.untouched_intact &= std::memcmp(&x[s * xs + j], &before[s * xs + j], 4) == 0;
    }
  for (int s = 0; s < n; ++s)
    r.y.emplace_back(x.begin() + std::ptrdiff_t(std::size_t(s) * xs), x.begin() + std::ptrdiff_t(std::size_t(s) * xs + w));
  return r;
}

inline std::vector<float> replay_row(const cpu_entry& e, const rope_case& c, int id) {
  return ops::rope::replay::row(c.pool[std::size_t(id)].data(), c.tables[std::size_t(id)].data(), c.n_heads, c.head_dim,
                                c.n_rot, e.turn == direction::inverse);
}

}  // namespace ordo::test::rope
