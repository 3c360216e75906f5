/// Test harness for hc specs: random cases (order-sensitive states, mixes of a magnitude where the
/// sigmoids and the Sinkhorn are mostly not saturated, splits, sublayer outputs) and a runner that
/// executes an entry with chosen pool rows in chosen slots, padded strides, NaN-poisoned input
/// padding and rows past the live count, sentinel-filled outputs, and reports whether anything
/// outside the live outputs of the entry's stage was written.
#pragma once
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <stdexcept>
#include <vector>

#include "op_test_inputs.hpp"
#include "ordo/ops/hc/entries.hpp"
#include "ordo/ops/hc/replay.hpp"

namespace ordo::test::hc {

using ops::hc::cpu_entry;
using ops::hc::n_split;
using ops::hc::n_streams;
using ops::hc::problem;
using ops::hc::stage;

inline constexpr float eps = 1e-6f;

struct hc_case {
  int n_embd = 1;
  std::vector<float> scale, base;          // [3], [24]; the head uses scale[0], base[0..3]
  std::vector<std::vector<float>> mixes;   // pool of 24 mixes (the head reads the first 4)
  std::vector<std::vector<float>> splits;  // pool of split rows (weighted_sum, post inputs)
  std::vector<std::vector<float>> states;  // pool of H rows, 4 * n_embd each
  std::vector<std::vector<float>> f;       // pool of sublayer outputs (post), n_embd each
  int flat() const { return n_streams * n_embd; }
};

/// Mixes in ±[1/4, 8), scales in ±[1/4, 2), bases in ±[1/2, 4): z = mix·s + base is mostly inside
/// the sigmoid's live range and the Sinkhorn logits are spread. Splits are full-mantissa values in
/// ±[1/4, 8): post and weighted_sum do no arithmetic that depends on them being a real split.
inline hc_case make_case(int n_embd, int pool, std::uint64_t seed) {
  hc_case c;
  c.n_embd = n_embd;
  quant::splitmix64 rng{seed};
  for (int k = 0; k < 3; ++k) c.scale.push_back(std::ldexp(mixed_float(rng, 1), -1));
  c.base = mixed_floats(rng, std::size_t(n_split), 1);
  for (int i = 0; i < pool; ++i) {
    c.mixes.push_back(mixed_floats(rng, std::size_t(n_split), 2));
    c.splits.push_back(mixed_floats(rng, std::size_t(n_split), 2));
    c.states.push_back(mixed_floats(rng, std::size_t(c.flat())));
    c.f.push_back(mixed_floats(rng, std::size_t(n_embd)));
  }
  return c;
}

struct layout {
  std::size_t mix_pad = 0, split_pad = 0, h_pad = 0, x_pad = 0, f_pad = 0, h_new_pad = 0;  // extra floats per row
  bool poison_unused_rows = true;  // input rows past the live count up to the tier hold NaN
};

struct result {
  std::vector<std::vector<float>> x, split, h_new;  // per slot, what the stage writes
  bool padding_intact = true;
};

/// Runs a spec. The CPU executor is the default; a test can pass another runner (a mutant).
using runner = std::function<void(const cpu_entry&, const problem&)>;
inline void run_entry(const cpu_entry& e, const problem& p) { e.run(p); }

/// An input buffer of `rows` rows of `stride` floats: live slots hold pool rows, the rest NaN
/// (or zeros when unused rows are not poisoned; stride padding always NaN).
inline std::vector<float> input_rows(const std::vector<std::vector<float>>& pool, const std::vector<int>& ids,
                                     std::size_t rows, std::size_t width, std::size_t stride, bool poison) {
  std::vector<float> v(rows * stride, std::numeric_limits<float>::quiet_NaN());
  for (std::size_t s = 0; s < ids.size(); ++s) std::memcpy(v.data() + s * stride, pool[std::size_t(ids[s])].data(), width * 4);
  if (!poison)
    for (std::size_t s = ids.size(); s < rows; ++s) std::fill_n(v.data() + s * stride, width, 0.0f);
  return v;
}

/// Reads the live slots of an output buffer (when `written`) and checks that every other float
/// still holds the sentinel.
inline void collect(const std::vector<float>& buf, std::size_t stride, std::size_t width, std::size_t live, bool written,
                    std::vector<std::vector<float>>& slots, bool& intact) {
  const std::size_t rows = buf.size() / stride;
  for (std::size_t s = 0; s < rows; ++s) {
    const bool mine = written && s < live;
    if (mine) slots.emplace_back(buf.begin() + std::ptrdiff_t(s * stride), buf.begin() + std::ptrdiff_t(s * stride + width));
    for (std::size_t j = mine ? width : 0; j < stride; ++j) intact &= is_sentinel(buf[s * stride + j]);
  }
}

inline result run(const cpu_entry& e, const hc_case& c, const std::vector<int>& ids, const layout& l = {},
                  const runner& exec = run_entry) {
  const int n = int(ids.size());
  if (n < 1 || n > e.tier) throw std::invalid_argument("hc run: row count outside the tier");
  const std::size_t rows = std::size_t(e.tier), flat = std::size_t(c.flat()), embd = std::size_t(c.n_embd);
  const std::size_t ms = n_split + l.mix_pad, ss = n_split + l.split_pad, hs = flat + l.h_pad, xs = embd + l.x_pad,
                    fs = embd + l.f_pad, ns = flat + l.h_new_pad;
  const bool writes_split = e.part == stage::split, writes_x = e.part == stage::weighted_sum || e.part == stage::collapse,
             writes_h = e.part == stage::post;
  const bool poison = l.poison_unused_rows;
  std::vector<float> mix = input_rows(c.mixes, ids, rows, n_split, ms, poison);
  std::vector<float> split = writes_split ? std::vector<float>(rows * ss, sentinel())
                                          : input_rows(c.splits, ids, rows, n_split, ss, poison);
  std::vector<float> h = input_rows(c.states, ids, rows, flat, hs, poison);
  std::vector<float> f = input_rows(c.f, ids, rows, embd, fs, poison);
  std::vector<float> x(rows * xs, sentinel()), h_new(rows * ns, sentinel());
  const std::vector<float> mix_in = mix, split_in = split, h_in = h, f_in = f;
  problem p{mix.data(), ms, c.scale.data(), c.base.data(), split.data(), ss, h.data(), hs, x.data(), xs,
            f.data(), fs, h_new.data(), ns, c.n_embd, n, eps};
  exec(e, p);
  result r;
  collect(x, xs, embd, std::size_t(n), writes_x, r.x, r.padding_intact);
  collect(h_new, ns, flat, std::size_t(n), writes_h, r.h_new, r.padding_intact);
  if (writes_split) collect(split, ss, n_split, std::size_t(n), true, r.split, r.padding_intact);
  // Inputs are never written (NaN compares unequal, so compare bytes).
  const auto unchanged = [](const std::vector<float>& a, const std::vector<float>& b) {
    return std::memcmp(a.data(), b.data(), a.size() * 4) == 0;
  };
  r.padding_intact &= unchanged(mix, mix_in) && unchanged(h, h_in) && unchanged(f, f_in);
  if (!writes_split) r.padding_intact &= unchanged(split, split_in);
  return r;
}

/// What the independent replay says slot s of a run of pool row `id` must hold (what the stage
/// writes; the other outputs empty).
inline result replay_row(const cpu_entry& e, const hc_case& c, int id) {
  namespace replay = ops::hc::replay;
  const auto i = std::size_t(id);
  result r;
  if (e.part == stage::split) {
    const auto s = replay::split_row(c.mixes[i].data(), c.scale.data(), c.base.data(), eps);
    r.split.emplace_back(s.begin(), s.end());
  } else if (e.part == stage::weighted_sum) {
    r.x.push_back(replay::collapse(c.states[i].data(), c.n_embd, c.splits[i].data()));
  } else if (e.part == stage::post) {
    r.h_new.push_back(replay::post_row(c.states[i].data(), c.n_embd, c.splits[i].data(), c.f[i].data()));
  } else {
    r.x.push_back(replay::head_row(c.mixes[i].data(), c.scale.data(), c.base.data(), eps, c.states[i].data(), c.n_embd));
  }
  return r;
}

/// Slot s of `got` has the bits of slot t of `want`, in every output the stage writes.
inline bool same_slot(const result& got, std::size_t s, const result& want, std::size_t t) {
  const auto same = [&](const std::vector<std::vector<float>>& a, const std::vector<std::vector<float>>& b) {
    return a.empty() || b.empty() ? a.empty() == b.empty() : same_bits(a[s], b[t]);
  };
  return same(got.x, want.x) && same(got.split, want.split) && same(got.h_new, want.h_new);
}

}  // namespace ordo::test::hc
