/// Test harnesses of compressor's two calls for the generic drivers (tests/property/drivers).
///   store (compressor.store.rR.ratioN): a pool of consecutive positions' kv / score rows (full
///     mantissas; kv over ±8 octaves, scores ±2, the APE bias ±1), DS4's widths (2·512 on ratio
///     4, 512 on ratio 128) on half the cases and odd widths otherwise, a drawn ring depth and
///     base position (passes that wrap included). A slot is a position (rows_are_positions): pool
///     row i is position base + i. A run stores into a sentinel-filled ring with padded strides,
///     NaN (or zero) rows past the live count, and reports whether anything but the owned slots'
///     W floats was written (inputs included). A slot's bytes: its kv and score ring rows. The
///     replay is replay::store; the oracle is exact (below).
///   emit (compressor.emit.ratioN.O.rows): one emission per call (no tier); a run emits up to 8
///     consecutive windows of one ring, a call per slot (pool row i: window first + i; window 0
///     of ratio 4 included: lane A reads the never-written window −1), now and then columns
///     whose every score is −inf; DS4's d (512 attention, 128 indexer rows)
///     on half the cases, odd d otherwise (powers of two for the indexer's Hadamard), a drawn RoPE
///     tail. The padded layout poisons every ring row outside the windows and the stride
///     padding with NaN; each output row is followed by sentinels. A slot's bytes: the d floats of the row.
///     The replay is replay::emit; the oracle is the double-precision bound of emit_bound.hpp.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "../drivers/data.hpp"
#include "../drivers/properties.hpp"
#include "emit_bound.hpp"
#include "ordo/ops/compressor/compressor.hpp"
#include "ordo/ops/compressor/replay.hpp"
#include "ordo/ops/rope/table.hpp"
#include "ordo/ref/config.hpp"
#include "ordo/ref/rope.hpp"

namespace ordo::test {

template <>
struct harness<ops::compressor::store_op> {
  using op = ops::compressor::store_op;
  using entry = registry::entry<op>;
  using ratio = ops::compressor::ratio;
  static constexpr int order_axis = -1;    // element-wise: no order axis
  static constexpr int untiered_rows = 1;  // unused: every store spec has a tier
  static constexpr bool rows_are_positions = true;  // the APE row and the ring slot follow the position

  struct data {
    ratio geometry = ratio::r4;
    int width = 0;
    std::vector<float> ape;                  // [ratio][width]
    std::vector<std::vector<float>> kv, sc;  // pool row i: position base + i
    std::int64_t base = 0, ring_rows = 0;    // ring_rows: a multiple of the ratio, >= the pool
  };

  static data make(ratio g, int width, int pool, std::int64_t base, std::int64_t ring_rows, std::uint64_t seed) {
    data d;
    d.geometry = g, d.width = width, d.base = base, d.ring_rows = ring_rows;
    quant::splitmix64 rng{seed};
    for (std::size_t j = 0; j < std::size_t(ops::compressor::ratio_of(g)) * std::size_t(width); ++j) d.ape.push_back(mixed_float(rng, 1));
    for (int i = 0; i < pool; ++i) {
      std::vector<float> kv(static_cast<std::size_t>(width)), sc(static_cast<std::size_t>(width));
      for (auto& x : kv) x = mixed_float(rng, 8);
      for (auto& x : sc) x = mixed_float(rng, 2);
      d.kv.push_back(std::move(kv));
      d.sc.push_back(std::move(sc));
    }
    return d;
  }

  static data draw(const entry& e, int pool, int c) {
    const ratio g = e.info.geometry;
    const int r = ops::compressor::ratio_of(g);
    const int width = c % 4 < 2 ? ops::compressor::coff_of(g) * 512 : detail::uniform(1, 700);
    const int depth = pool + detail::uniform(0, 20);
    return make(g, width, pool, detail::uniform(0, 100000), std::int64_t(r) * ((depth + r - 1) / r),
                *rc::gen::resize(100, rc::gen::arbitrary<std::uint64_t>()));
  }

  struct layout {
    std::size_t in_pad = 0, ring_pad = 0;  // extra floats per row (inputs: NaN; ring: the sentinel)
    bool poison_unused_rows = true;        // input rows past the live count up to the tier hold NaN (else zeros)
  };
  static layout tight_layout() { return {}; }
  static layout draw_padded_layout() {
    return {std::size_t(detail::uniform(1, 40)), std::size_t(detail::uniform(1, 40)), detail::uniform(0, 1) == 1};
  }

  static run_result run(const backend& be, const entry& e, const data& d, const std::vector<int>& ids, const layout& l) {
    const int n = int(ids.size());
    if (n < 1 || n > e.tier) throw std::invalid_argument("compressor store run: row count outside the tier");
    for (int s = 1; s < n; ++s)
      if (ids[std::size_t(s)] != ids[0] + s) throw std::logic_error("compressor store run: a pass stores consecutive positions");
    const std::int64_t first = d.base + ids[0];
    const std::size_t w = std::size_t(d.width), is = w + l.in_pad, rs = w + l.ring_pad;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> kv(std::size_t(e.tier) * is, nan), sc = kv;
    for (int s = 0; s < n; ++s) {
      std::memcpy(kv.data() + std::size_t(s) * is, d.kv.at(std::size_t(ids[std::size_t(s)])).data(), w * 4);
      std::memcpy(sc.data() + std::size_t(s) * is, d.sc.at(std::size_t(ids[std::size_t(s)])).data(), w * 4);
    }
    if (!l.poison_unused_rows)
      for (std::size_t s = std::size_t(n); s < std::size_t(e.tier); ++s) {
        std::fill_n(kv.data() + s * is, w, 0.0f);
        std::fill_n(sc.data() + s * is, w, 0.0f);
      }
    const std::vector<float> kv_in = kv, sc_in = sc;
    std::vector<std::uint32_t> kv_ring(std::size_t(d.ring_rows) * rs, out_sentinel), sc_ring = kv_ring;
    be.run(e, op::problem{kv.data(), sc.data(), is, d.ape.data(), reinterpret_cast<float*>(kv_ring.data()),
                          reinterpret_cast<float*>(sc_ring.data()), rs, d.ring_rows, first, d.width, n});
    run_result r;
    std::vector<bool> owned(std::size_t(d.ring_rows), false);
    for (int s = 0; s < n; ++s) {
      const auto slot = std::size_t((first + s) % d.ring_rows);
      owned[slot] = true;
      std::vector<std::byte> row(8 * w);
      std::memcpy(row.data(), kv_ring.data() + slot * rs, 4 * w);
      std::memcpy(row.data() + 4 * w, sc_ring.data() + slot * rs, 4 * w);
      r.rows.push_back(std::move(row));
    }
    for (std::size_t slot = 0; slot < std::size_t(d.ring_rows); ++slot)
      for (std::size_t j = owned[slot] ? w : 0; j < rs; ++j)
        r.padding_intact &= kv_ring[slot * rs + j] == out_sentinel && sc_ring[slot * rs + j] == out_sentinel;
    r.padding_intact &= same_bits(kv, kv_in) && same_bits(sc, sc_in);  // the inputs are never written
    return r;
  }

  static const float* ape_row(const data& d, int pool_row) {
    const int r = ops::compressor::ratio_of(d.geometry);
    return d.ape.data() + std::size_t((d.base + pool_row) % r) * std::size_t(d.width);
  }

  static std::vector<std::byte> replay(const entry&, const data& d, int pool_row) {
    const auto s = ops::compressor::replay::store(d.kv[std::size_t(pool_row)].data(), d.sc[std::size_t(pool_row)].data(),
                                                  ape_row(d, pool_row), d.width);
    std::vector<std::byte> b(8 * std::size_t(d.width));
    std::memcpy(b.data(), s.kv.data(), 4 * s.kv.size());
    std::memcpy(b.data() + 4 * s.kv.size(), s.score.data(), 4 * s.score.size());
    return b;
  }

  /// The oracle, exact: the kv row unchanged, and each score the double sum sc + ape rounded once
  /// to float. Two floats whose exponents differ by at most 29 sum exactly in double (24 + 29 <=
  /// 53), so that is the correctly rounded float sum the store must produce; the data keep the
  /// exponents within ±10 of each other, and the oracle checks the double sum is exact (two-sum
  /// error 0) before it relies on it.
  static std::string oracle(const entry&, const data& d, int pool_row, const std::vector<std::byte>& got) {
    const std::size_t w = std::size_t(d.width);
    std::vector<float> kv(w), sc(w);
    std::memcpy(kv.data(), got.data(), 4 * w);
    std::memcpy(sc.data(), got.data() + 4 * w, 4 * w);
    const float* ape = ape_row(d, pool_row);
    for (std::size_t j = 0; j < w; ++j) {
      if (std::memcmp(&kv[j], &d.kv[std::size_t(pool_row)][j], 4) != 0) return "kv column " + std::to_string(j) + " not copied";
      const double a = d.sc[std::size_t(pool_row)][j], b = ape[j], s = a + b, bb = s - a;
      if ((a - (s - bb)) + (b - bb) != 0) return "column " + std::to_string(j) + ": the double sum is inexact (oracle precondition)";
      const float want = float(s);
      if (std::memcmp(&sc[j], &want, 4) != 0)
        return "score column " + std::to_string(j) + ": " + std::to_string(sc[j]) + ", reference " + std::to_string(want);
    }
    return {};
  }

  /// The inputs and both whole rings travel (padding, other slots) and come back, the inputs too.
  static op::problem to_device(const entry& e, const op::problem& p, device_mover& m) {
    auto q = p;
    const std::size_t in = 4 * std::size_t(e.tier) * p.in_stride, ring = 4 * std::size_t(p.ring_rows) * p.ring_stride;
    q.kv = reinterpret_cast<const float*>(m.inout(const_cast<float*>(p.kv), in));
    q.score = reinterpret_cast<const float*>(m.inout(const_cast<float*>(p.score), in));
    q.ape = reinterpret_cast<const float*>(m.in(p.ape, 4 * std::size_t(ops::compressor::ratio_of(e.info.geometry)) * std::size_t(p.width)));
    q.kv_ring = reinterpret_cast<float*>(m.inout(p.kv_ring, ring));
    q.score_ring = reinterpret_cast<float*>(m.inout(p.score_ring, ring));
    return q;
  }
};

template <>
struct harness<ops::compressor::emit_op> {
  using op = ops::compressor::emit_op;
  using entry = registry::entry<op>;
  using ratio = ops::compressor::ratio;
  using emitted = ops::compressor::emitted;
  static constexpr int order_axis = 1;  // (ratio, order, rows)
  /// A run emits up to 8 consecutive windows of one ring, one call per slot in slot order (the
  /// layer step's per-row emissions of a prefill chunk): an emission only reads the ring.
  static constexpr int untiered_rows = 8;
  /// P5's bar, in outputs: ls32 and lb32 differ only through the norm's Σx² (512 positive terms:
  /// inv_rms moves by an ulp on about a fifth of the rows), and in such a row the FP8 step of the
  /// first d − 64 dims absorbs nearly every one-ulp change, so mostly the 64 RoPE dims (1/8 of
  /// the row) differ: about 1/5 · 1/8 ≈ 2.5% of the outputs. Measured over 200 DS4 rows and kv /
  /// score spreads of 0–30 / 0–6 octaves: 10–27% of rows, 1.0–2.7% of values
  /// (compressor_properties_test's EmitOrdersDifferOnDs4Rows prints it for tail_data). An order
  /// that changed no bit gives 0; P5's 12 × 8 rows make a miss of the bar negligible.
  static constexpr double p5_min_differing = 0.005;
  static constexpr std::size_t out_guard = 64;  // sentinel floats after each output row

  struct data {
    ratio geometry = ratio::r4;
    emitted rows = emitted::attention;
    int d = 512, n_rot = 64;
    int first_window = 0, windows = 1;       // pool row i emits window first_window + i
    std::int64_t ring_rows = 8;
    std::vector<float> norm;                 // [d]
    std::vector<std::vector<float>> cos_sin;  // per window: the 32 pairs of its start position
    std::vector<std::vector<float>> kv, sc;  // positions first_position() …: W floats each
    int width() const { return ops::compressor::coff_of(geometry) * d; }
    int ratio_value() const { return ops::compressor::ratio_of(geometry); }
    /// Ratio 4's first window also reads lane A of the window before it.
    std::int64_t first_position() const {
      return std::int64_t(first_window) * ratio_value() - (geometry == ratio::r4 ? ratio_value() : 0);
    }
    std::int64_t end_of(int pool_row) const { return std::int64_t(first_window + pool_row + 1) * ratio_value() - 1; }
    int reach() const { return geometry == ratio::r4 ? 8 : 128; }
  };

  /// Windows first_window … first_window + windows − 1 of one sequence; positions before 0 are the
  /// ring's never-written rows (kv 0, score −inf); with dead_columns, about one column in eight
  /// scores −inf at every entry (it pools to 0).
  static data make(ratio g, emitted rows, int d, int n_rot, int first_window, int windows, int extra_ring_windows,
                   bool dead_columns, std::uint64_t seed) {
    data x;
    x.geometry = g, x.rows = rows, x.d = d, x.n_rot = n_rot, x.first_window = first_window, x.windows = windows;
    const int r = x.ratio_value();
    x.ring_rows = std::int64_t(r) * (windows + (g == ratio::r4 ? 1 : 0) + extra_ring_windows);
    quant::splitmix64 rng{seed};
    for (int j = 0; j < d; ++j) x.norm.push_back(mixed_float(rng, 2));
    ops::rope::angles a;
    a.base = 160000.0;
    a.yarn = true;
    for (int i = 0; i < windows; ++i) {
      std::vector<float> t(std::size_t(a.n_rot));
      a.fill(double(x.end_of(i) + 1 - r), t.data());
      x.cos_sin.push_back(std::move(t));
    }
    std::vector<bool> dead(std::size_t(d), false);
    if (dead_columns)
      for (auto&& v : dead) v = rng() % 8 == 0;
    for (std::int64_t q = x.first_position(); q <= x.end_of(windows - 1); ++q) {
      std::vector<float> kv(std::size_t(x.width()), 0.0f), sc(std::size_t(x.width()), -INFINITY);
      if (q >= 0)
        for (int j = 0; j < x.width(); ++j) {
          kv[std::size_t(j)] = mixed_float(rng, 8);
          sc[std::size_t(j)] = dead[std::size_t(j % d)] ? -INFINITY : mixed_float(rng, 2);
        }
      x.kv.push_back(std::move(kv));
      x.sc.push_back(std::move(sc));
    }
    return x;
  }

  static data draw(const entry& e, int pool, int c) {
    const bool indexer = e.info.rows == emitted::indexer, ds4 = c % 2 == 0;
    int d = indexer ? 128 : 512, n_rot = 64;
    if (!ds4) {
      d = indexer ? 1 << detail::uniform(0, 7) : detail::uniform(1, 300);
      n_rot = 2 * detail::uniform(0, std::min(d, 64) / 2);
    }
    const int first_window = c % 5 == 1 ? 0 : detail::uniform(0, 3000);
    return make(e.info.geometry, e.info.rows, d, n_rot, first_window, pool, detail::uniform(0, 3), c % 7 == 3,
                *rc::gen::resize(100, rc::gen::arbitrary<std::uint64_t>()));
  }

  /// P5's data: DS4 rows (d 512 attention, 128 indexer) of windows far from the start.
  static data tail_data(const entry& e, int rows, std::uint64_t seed) {
    const bool indexer = e.info.rows == emitted::indexer;
    return make(e.info.geometry, e.info.rows, indexer ? 128 : 512, 64, int(seed % 1000) + 1, rows, 0, false, seed);
  }

  struct layout {
    std::size_t ring_pad = 0;     // extra floats per ring row (NaN)
    bool poison_outside = false;  // ring rows of no position of the data NaN (else the ring's initial kv 0, score −inf)
  };
  static layout tight_layout() { return {}; }
  static layout draw_padded_layout() { return {std::size_t(detail::uniform(1, 40)), true}; }

  /// The ring of the data: its positions' rows at their slots, the rest as the layout says.
  static void fill_ring(const data& d, const layout& l, std::vector<float>& kv, std::vector<float>& sc, std::size_t& stride) {
    const std::size_t w = std::size_t(d.width());
    stride = w + l.ring_pad;
    kv.assign(std::size_t(d.ring_rows) * stride, std::numeric_limits<float>::quiet_NaN());
    sc = kv;
    if (!l.poison_outside)
      for (std::int64_t s = 0; s < d.ring_rows; ++s) {
        std::fill_n(kv.begin() + std::ptrdiff_t(std::size_t(s) * stride), w, 0.0f);
        std::fill_n(sc.begin() + std::ptrdiff_t(std::size_t(s) * stride), w, -INFINITY);
      }
    for (std::size_t t = 0; t < d.kv.size(); ++t) {
      const std::size_t at = std::size_t(ops::compressor::slot_of(d.first_position() + std::int64_t(t), d.ring_rows)) * stride;
      std::copy(d.kv[t].begin(), d.kv[t].end(), kv.begin() + std::ptrdiff_t(at));
      std::copy(d.sc[t].begin(), d.sc[t].end(), sc.begin() + std::ptrdiff_t(at));
    }
  }

  static run_result run(const backend& be, const entry& e, const data& d, const std::vector<int>& ids, const layout& l) {
    const std::size_t n = ids.size(), os = std::size_t(d.d) + out_guard;
    if (n < 1 || n > std::size_t(untiered_rows)) throw std::invalid_argument("compressor emit run: slot count outside 1..8");
    std::vector<float> kv, sc;
    std::size_t stride = 0;
    fill_ring(d, l, kv, sc, stride);
    const std::vector<float> kv_in = kv, sc_in = sc;
    std::vector<std::uint32_t> out(n * os, out_sentinel);
    for (std::size_t s = 0; s < n; ++s) {
      const int w = ids[s];
      be.run(e, op::problem{kv.data(), sc.data(), stride, d.ring_rows, d.end_of(w), d.norm.data(), compressor::eps,
                                       d.cos_sin.at(std::size_t(w)).data(), d.n_rot, reinterpret_cast<float*>(out.data() + s * os),
                                       d.d});
    }
    run_result r;
    for (std::size_t s = 0; s < n; ++s) {
      std::vector<std::byte> row(4 * std::size_t(d.d));
      std::memcpy(row.data(), out.data() + s * os, row.size());
      r.rows.push_back(std::move(row));
      for (std::size_t j = std::size_t(d.d); j < os; ++j) r.padding_intact &= out[s * os + j] == out_sentinel;
    }
    r.padding_intact &= same_bits(kv, kv_in) && same_bits(sc, sc_in);  // the ring is only read
    return r;
  }

  static std::vector<float> as_floats(const std::vector<std::byte>& row) {
    std::vector<float> v(row.size() / 4);
    std::memcpy(v.data(), row.data(), row.size());
    return v;
  }
  static std::vector<float> outputs(const std::vector<std::byte>& row) { return as_floats(row); }

  static std::vector<std::byte> replay(const entry& e, const data& d, int pool_row) {
    std::vector<float> kv, sc;
    std::size_t stride = 0;
    fill_ring(d, tight_layout(), kv, sc, stride);
    const auto y = ops::compressor::replay::emit(d.geometry, e.axes[1].view(), {kv.data(), sc.data(), stride, d.ring_rows},
                                                 d.end_of(pool_row), d.d, d.norm.data(), compressor::eps,
                                                 d.cos_sin[std::size_t(pool_row)].data(), d.n_rot, d.rows);
    std::vector<std::byte> b(4 * y.size());
    std::memcpy(b.data(), y.data(), b.size());
    return b;
  }

  /// The columns' window entries in entry order (ratio 4: lane A of the previous window, then
  /// lane B of this one) pooled in double, with their bounds.
  static std::vector<compressor::column_bound> pooled_columns(const data& d, int pool_row) {
    std::vector<compressor::column_bound> cb(std::size_t(d.d));
    const std::int64_t lo = d.end_of(pool_row) - d.reach() + 1 - d.first_position();  // index of the window's first entry
    for (int j = 0; j < d.d; ++j) {
      std::vector<double> s, v;
      for (int t = 0; t < d.reach(); ++t) {
        const int col = d.geometry == ratio::r4 && t >= 4 ? d.d + j : j;
        s.push_back(d.sc[std::size_t(lo + t)][std::size_t(col)]);
        v.push_back(d.kv[std::size_t(lo + t)][std::size_t(col)]);
      }
      cb[std::size_t(j)] = compressor::pool_bound(s, v);
    }
    return cb;
  }

  /// The oracle: the row pooled, normed and rotated in double (the reference's RoPE angles,
  /// ordo/ref/rope.hpp, not the float table) and finished by the reference's FP8 or Hadamard +
  /// FP4 round trip, within emit_bound.hpp's derived bound.
  static std::string oracle(const entry&, const data& d, int pool_row, const std::vector<std::byte>& got) {
    const auto cb = pooled_columns(d, pool_row);
    const auto rope = ref::layer_rope(ref::config{}, d.ratio_value());
    const double start = double(d.end_of(pool_row) + 1 - d.ratio_value());
    std::vector<double> theta;
    for (int k = 0; k < d.n_rot / 2; ++k) theta.push_back(ref::rope_angle(rope, start, k));
    const auto before = compressor::normed_rotated(cb, d.norm.data(), compressor::eps, theta, d.n_rot);
    const auto have = as_floats(got);
    return compressor::check_emitted_row(d.rows, d.n_rot, cb, d.norm.data(), compressor::eps, theta, before, have.data()).failure;
  }

  /// The whole rings (padding and poisoned rows) travel and come back; the output with its guard.
  static op::problem to_device(const entry&, const op::problem& p, device_mover& m) {
    auto q = p;
    const std::size_t ring = 4 * std::size_t(p.ring_rows) * p.ring_stride;
    q.kv_ring = reinterpret_cast<const float*>(m.inout(const_cast<float*>(p.kv_ring), ring));
    q.score_ring = reinterpret_cast<const float*>(m.inout(const_cast<float*>(p.score_ring), ring));
    q.norm = reinterpret_cast<const float*>(m.in(p.norm, 4 * std::size_t(p.d)));
    q.cos_sin = reinterpret_cast<const float*>(m.in(p.cos_sin, 4 * 64));
    q.out = reinterpret_cast<float*>(m.inout(p.out, 4 * (std::size_t(p.d) + out_guard)));
    return q;
  }
};

}  // namespace ordo::test
