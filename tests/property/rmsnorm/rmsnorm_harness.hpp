/// Test harness for rmsnorm specs: random cases (order-sensitive rows, DS4 and odd shapes) and a
/// runner that executes an entry with chosen pool rows in chosen slots, padded strides, NaN-poisoned
/// padding and poisoned rows past the live count, and reports whether any padding was written.
#pragma once
#include <cstring>
#include <functional>
#include <limits>
#include <stdexcept>
#include <vector>

#include "op_test_inputs.hpp"
#include "ordo/ops/rmsnorm/entries.hpp"
#include "ordo/ops/rmsnorm/replay.hpp"

namespace ordo::test::rmsnorm {

using ops::rmsnorm::cpu_entry;
using ops::rmsnorm::epilogue;
using ops::rmsnorm::problem;
using ops::rmsnorm::weighting;

struct rms_case {
  int n_heads = 1, head_dim = 32;
  std::vector<float> weight;             // [head_dim]
  std::vector<std::vector<float>> pool;  // rows of n_heads * head_dim
  int width() const { return n_heads * head_dim; }
};

inline rms_case make_case(int n_heads, int head_dim, int pool, std::uint64_t seed) {
  rms_case c;
  c.n_heads = n_heads;
  c.head_dim = head_dim;
  quant::splitmix64 rng{seed};
  c.weight = mixed_floats(rng, std::size_t(head_dim), 3);
  for (int i = 0; i < pool; ++i) c.pool.push_back(mixed_floats(rng, std::size_t(c.width())));
  return c;
}

struct layout {
  std::size_t x_pad = 0, out_pad = 0, q8_pad = 0;  // extra floats / bytes per row, poisoned
  bool poison_unused_rows = true;                  // rows past the live count up to the tier hold NaN
};

struct result {
  std::vector<std::vector<float>> y;               // per slot
  std::vector<std::vector<std::byte>> q8;          // per slot (epilogue q8_32), the dense blocks
  bool padding_intact = true;
};

/// Runs a spec. The CPU executor is the default; a test can pass another runner (a mutant).
using runner = std::function<void(const cpu_entry&, const problem&)>;
inline void run_entry(const cpu_entry& e, const problem& p) { e.run(p); }

inline constexpr std::byte q8_pad_byte{0xA5};

inline result run(const cpu_entry& e, const rms_case& c, const std::vector<int>& ids, const layout& l = {},
                  const runner& exec = run_entry) {
  const int n = int(ids.size());
  if (n < 1 || n > e.tier) throw std::invalid_argument("rmsnorm run: row count outside the tier");
  const std::size_t w = std::size_t(c.width());
  const std::size_t xs = w + l.x_pad, os = w + l.out_pad;
  const std::size_t q8_dense = c.head_dim % 32 == 0 ? w / 32 * sizeof(quant::q8_32::block) : 0;
  const std::size_t qs = q8_dense + l.q8_pad;
  const std::size_t alloc_rows = std::size_t(e.tier);
  std::vector<float> x(alloc_rows * xs, std::numeric_limits<float>::quiet_NaN());
  for (int s = 0; s < n; ++s) std::memcpy(x.data() + std::size_t(s) * xs, c.pool[std::size_t(ids[std::size_t(s)])].data(), w * 4);
  if (!l.poison_unused_rows)
    for (std::size_t s = std::size_t(n); s < alloc_rows; ++s) std::memset(x.data() + s * xs, 0, xs * 4);
  std::vector<float> out(alloc_rows * os, sentinel());
  std::vector<std::byte> q8(alloc_rows * qs + 1, q8_pad_byte);
  problem p{x.data(), xs, c.weight.data(), out.data(), os, q8.data(), qs, c.n_heads, c.head_dim, n, 1e-6f};
  exec(e, p);
  result r;
  for (int s = 0; s < n; ++s) {
    r.y.emplace_back(out.begin() + std::ptrdiff_t(std::size_t(s) * os), out.begin() + std::ptrdiff_t(std::size_t(s) * os + w));
    if (e.writes == epilogue::q8_32)
      r.q8.emplace_back(q8.begin() + std::ptrdiff_t(std::size_t(s) * qs), q8.begin() + std::ptrdiff_t(std::size_t(s) * qs + q8_dense));
  }
  // Padding: the stride tail of live rows and every float of rows past n keep the sentinel; q8
  // bytes outside the live rows' dense blocks (and all of them without the epilogue) keep theirs.
  for (std::size_t s = 0; s < alloc_rows; ++s)
    for (std::size_t j = s < std::size_t(n) ? w : 0; j < os; ++j) r.padding_intact &= is_sentinel(out[s * os + j]);
  for (std::size_t s = 0; s < alloc_rows; ++s) {
    const std::size_t from = s < std::size_t(n) && e.writes == epilogue::q8_32 ? q8_dense : 0;
    for (std::size_t j = from; j < qs; ++j) r.padding_intact &= q8[s * qs + j] == q8_pad_byte;
  }
  r.padding_intact &= q8.back() == q8_pad_byte;
  return r;
}

/// What the independent replay says slot s of a run of pool row `id` must hold.
inline ops::rmsnorm::replay::row_result replay_row(const cpu_entry& e, const rms_case& c, int id) {
  return ops::rmsnorm::replay::row(e.order, c.pool[std::size_t(id)].data(), c.n_heads, c.head_dim,
                                   e.weights == weighting::weighted ? c.weight.data() : nullptr, 1e-6f,
                                   e.writes == epilogue::q8_32);
}

}  // namespace ordo::test::rmsnorm
