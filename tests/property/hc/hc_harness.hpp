/// Test harness for hc specs: random cases (order-sensitive states, F16 mixer weights scaled so the
/// mixes land where the sigmoids and the Sinkhorn are not saturated, post inputs) and a runner that
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
#include "ordo/numeric/conversions.hpp"
#include "ordo/ops/hc/entries.hpp"
#include "ordo/ops/hc/replay.hpp"

namespace ordo::test::hc {

using ops::hc::cpu_entry;
using ops::hc::n_pre_mix;
using ops::hc::n_streams;
using ops::hc::problem;
using ops::hc::stage;

inline constexpr float eps = 1e-6f;

struct hc_case {
  int n_embd = 1;
  std::vector<std::uint16_t> fn;           // [24][4 * n_embd] F16; the head uses rows 0..3
  std::vector<float> scale, base;          // [3], [24]
  std::vector<std::vector<float>> states;  // pool of H rows, 4 * n_embd each
  std::vector<std::vector<float>> f;       // pool of sublayer outputs (post), n_embd each
  std::vector<std::vector<float>> splits;  // pool of post inputs, 24 each
  int flat() const { return n_streams * n_embd; }
};

/// fn entries get magnitude ~2^-(log2 sqrt(flat) + 2), so Σ fn·y over a unit-RMS flat row is O(1).
inline hc_case make_case(int n_embd, int pool, std::uint64_t seed) {
  hc_case c;
  c.n_embd = n_embd;
  quant::splitmix64 rng{seed};
  const int shift = int(std::ceil(std::log2(std::sqrt(double(c.flat()))))) + 2;
  c.fn.resize(std::size_t(n_pre_mix) * std::size_t(c.flat()));
  for (auto& w : c.fn) w = numeric::f32_to_f16(std::ldexp(mixed_float(rng, 3), -shift));
  c.scale = mixed_floats(rng, 3, 1);
  c.base = mixed_floats(rng, std::size_t(n_pre_mix), 1);
  for (int i = 0; i < pool; ++i) {
    c.states.push_back(mixed_floats(rng, std::size_t(c.flat())));
    c.f.push_back(mixed_floats(rng, std::size_t(n_embd)));
    c.splits.push_back(mixed_floats(rng, std::size_t(n_pre_mix), 2));
  }
  return c;
}

struct layout {
  std::size_t h_pad = 0, x_pad = 0, split_pad = 0, f_pad = 0, h_new_pad = 0;  // extra floats per row
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
  const std::size_t hs = flat + l.h_pad, xs = embd + l.x_pad, ss = n_pre_mix + l.split_pad, fs = embd + l.f_pad,
                    ns = flat + l.h_new_pad;
  const bool post = e.part == stage::post;
  std::vector<float> h = input_rows(c.states, ids, rows, flat, hs, l.poison_unused_rows);
  std::vector<float> f = input_rows(c.f, ids, rows, embd, fs, l.poison_unused_rows);
  std::vector<float> split = post ? input_rows(c.splits, ids, rows, n_pre_mix, ss, l.poison_unused_rows)
                                  : std::vector<float>(rows * ss, sentinel());
  const std::vector<float> split_in = split;
  std::vector<float> x(rows * xs, sentinel()), h_new(rows * ns, sentinel());
  const std::vector<float> h_in = h, f_in = f;
  problem p{h.data(), hs, c.fn.data(), c.scale.data(), c.base.data(), x.data(), xs, split.data(), ss,
            f.data(), fs, h_new.data(), ns, c.n_embd, n, 1e-6f, eps};
  exec(e, p);
  result r;
  collect(x, xs, embd, std::size_t(n), !post, r.x, r.padding_intact);
  collect(h_new, ns, flat, std::size_t(n), post, r.h_new, r.padding_intact);
  if (post) r.padding_intact &= std::memcmp(split.data(), split_in.data(), split.size() * 4) == 0;
  else collect(split, ss, n_pre_mix, std::size_t(n), e.part == stage::pre, r.split, r.padding_intact);
  // Inputs are never written (NaN compares unequal, so compare bytes).
  r.padding_intact &= std::memcmp(h.data(), h_in.data(), h.size() * 4) == 0;
  r.padding_intact &= std::memcmp(f.data(), f_in.data(), f.size() * 4) == 0;
  return r;
}

/// What the independent replay says slot s of a run of pool row `id` must hold (x, split, h_new as
/// the stage writes them; the others empty).
inline result replay_row(const cpu_entry& e, const hc_case& c, int id) {
  const auto i = std::size_t(id);
  result r;
  if (e.part == stage::post) {
    r.h_new.push_back(ops::hc::replay::post_row(c.states[i].data(), c.n_embd, c.splits[i].data(), c.f[i].data()));
    return r;
  }
  const bool head = e.part == stage::head;
  const auto want = ops::hc::replay::collapse_row(e.order, head, c.states[i].data(), c.n_embd, c.fn.data(),
                                                  c.scale.data(), c.base.data(), 1e-6f, eps);
  r.x.push_back(want.x);
  if (!head) r.split.emplace_back(want.split.begin(), want.split.end());
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
