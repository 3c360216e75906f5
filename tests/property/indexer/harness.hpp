/// Test harness of indexer for the generic drivers (tests/property/drivers): queries, head
/// weights and key rows of order-sensitive floats, duplicated key rows for exact score ties, each
/// row's visible count, DS4 and odd shapes; runs with chosen pool rows in chosen slots, padded
/// strides, NaN-poisoned padding, NaN key rows past every visible count, poisoned rows past the
/// live count, NaN-filled workspaces (a guard entry past the survivors) and sentinel-filled
/// outputs; the host replay (ops/indexer/replay.hpp) and the double-precision oracle. A slot's
/// bytes: its n_visible scores, then its selected ids.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "../drivers/data.hpp"
#include "../drivers/properties.hpp"
#include "ordo/ops/indexer/indexer.hpp"
#include "ordo/ops/indexer/replay.hpp"
#include "ordo/ref/rounding.hpp"

namespace ordo::test {

template <>
struct harness<ops::indexer::op> {
  using op = ops::indexer::op;
  using entry = registry::entry<op>;
  static constexpr int order_axis = 1;     // (tier, order, selector); one order is compiled: P5 n/a
  static constexpr int untiered_rows = 1;  // unused: every indexer spec has a tier

  struct data {
    int n_heads = 1, head_dim = 32, n_keys = 0, top_k = 1;
    float weight_scale = 1.0f;
    std::vector<float> keys;               // [n_keys][head_dim]
    std::vector<std::vector<float>> q, w;  // per pool row
    std::vector<int> n_visible;            // per pool row
  };
  struct layout {
    std::size_t q_pad = 0, w_pad = 0, key_pad = 0, sel_pad = 0, score_pad = 0;
    int extra_keys = 0;  // key rows past every visible count (NaN)
  };

  /// With `ties`, a third of the key rows copy another key row, so equal scores are common.
  static data make(int n_heads, int head_dim, int n_keys, int top_k, int pool, bool ties, std::uint64_t seed) {
    data d;
    d.n_heads = n_heads, d.head_dim = head_dim, d.n_keys = n_keys, d.top_k = top_k;
    d.weight_scale = float(1.0 / std::sqrt(double(head_dim) * n_heads));
    quant::splitmix64 rng{seed};
    const auto floats = [&](std::size_t n) {
      std::vector<float> v(n);
      for (auto& x : v) x = mixed_float(rng, 3);
      return v;
    };
    d.keys = floats(std::size_t(n_keys) * std::size_t(head_dim));
    if (ties && n_keys > 1)
      for (int j = 0; j < n_keys / 3; ++j) {
        const auto from = rng() % std::uint64_t(n_keys), to = rng() % std::uint64_t(n_keys);
        std::memcpy(d.keys.data() + to * std::uint64_t(head_dim), d.keys.data() + from * std::uint64_t(head_dim),
                    std::size_t(head_dim) * 4);
      }
    for (int i = 0; i < pool; ++i) {
      d.q.push_back(floats(std::size_t(n_heads) * std::size_t(head_dim)));
      d.w.push_back(floats(std::size_t(n_heads)));
      d.n_visible.push_back(n_keys == 0 ? 0 : int(rng() % std::uint64_t(n_keys + 1)));
    }
    return d;
  }

  /// DS4's 64 heads × 128 with top-512 over 2500 keys (every row a full history) on case 5 of
  /// every property of a run of at most two rows (the E2 the device must show at DS4 size); otherwise
  /// small heads (DS4's 128-wide on a quarter), up to ~1.6 blocks of keys so the hierarchical
  /// selector meets two blocks, k from 1 to past the visible count; ties on half the cases.
  static data draw(const entry& e, int pool, int c) {
    const std::uint64_t seed = *rc::gen::resize(100, rc::gen::arbitrary<std::uint64_t>());
    const bool ties = detail::uniform(0, 1) == 1;
    if (c % 40 == 5 && pool <= 2) {
      auto d = make(64, 128, 2500, 512, pool, ties, seed);
      for (auto& v : d.n_visible) v = 2500;
      return d;
    }
    const bool wide = detail::uniform(0, 3) == 0;
    const int head_dim = wide ? 128 : 1 << detail::uniform(0, 5);
    const int n_heads = detail::uniform(1, wide ? 2 : 5);
    const int n_keys = detail::uniform(0, 1699);
    const int top_k = detail::uniform(0, 1) == 0 ? 512 : detail::uniform(1, 699);
    return make(n_heads, head_dim, n_keys, top_k, pool, ties, seed);
  }

  static data tail_data(const entry& e, int rows, std::uint64_t seed) { return make(4, 32, 1500, 512, rows, false, seed); }

  static layout tight_layout() { return {}; }
  static layout draw_padded_layout() {
    return {std::size_t(detail::uniform(1, 20)), std::size_t(detail::uniform(1, 20)), std::size_t(detail::uniform(1, 20)),
            std::size_t(detail::uniform(1, 20)), std::size_t(detail::uniform(1, 20)), detail::uniform(1, 1200)};
  }

  static constexpr std::int32_t id_sentinel = std::int32_t(0x7fc0dea1);
  static constexpr std::int32_t survivor_guard = -7;

  static std::vector<std::byte> slot_bytes(const float* scores, int n_visible, const std::int32_t* selected, int n_selected) {
    std::vector<std::byte> row(4 * std::size_t(n_visible + n_selected));
    std::memcpy(row.data(), scores, 4 * std::size_t(n_visible));
    std::memcpy(row.data() + 4 * std::size_t(n_visible), selected, 4 * std::size_t(n_selected));
    return row;
  }

  static run_result run(const backend& be, const entry& e, const data& d, const std::vector<int>& ids, const layout& l) {
    const int n = int(ids.size());
    if (n < 1 || n > e.tier) throw std::invalid_argument("indexer run: row count outside the tier");
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::size_t width = std::size_t(d.n_heads) * std::size_t(d.head_dim), tier_rows = std::size_t(e.tier);
    const std::size_t qs = width + l.q_pad, ws = std::size_t(d.n_heads) + l.w_pad, ks = std::size_t(d.head_dim) + l.key_pad;
    const int n_keys = d.n_keys + l.extra_keys;
    const std::size_t ss = std::size_t(d.top_k) + l.sel_pad, cs = std::size_t(n_keys) + l.score_pad;
    std::vector<float> keys(std::size_t(n_keys) * ks, nan);
    for (int r = 0; r < d.n_keys; ++r)
      std::memcpy(keys.data() + std::size_t(r) * ks, d.keys.data() + std::size_t(r) * std::size_t(d.head_dim), std::size_t(d.head_dim) * 4);
    std::vector<float> q(tier_rows * qs, nan), w(tier_rows * ws, nan);
    std::vector<std::int32_t> n_visible(tier_rows, n_keys);  // rows past the live count: every (NaN) key
    for (int s = 0; s < n; ++s) {
      const auto id = std::size_t(ids[std::size_t(s)]);
      std::memcpy(q.data() + std::size_t(s) * qs, d.q.at(id).data(), width * 4);
      std::memcpy(w.data() + std::size_t(s) * ws, d.w[id].data(), std::size_t(d.n_heads) * 4);
      n_visible[std::size_t(s)] = d.n_visible[id];
    }
    std::vector<std::int32_t> selected(tier_rows * ss, id_sentinel), n_selected(tier_rows, id_sentinel);
    // One guard score past the last row: an empty key table still gets a (non-null) score buffer.
    std::vector<std::uint32_t> scores(tier_rows * cs + 1, out_sentinel);
    std::vector<float> q_fp4(tier_rows * width, nan);
    op::problem p{q.data(), qs, w.data(), ws, d.weight_scale, keys.data(), ks, n_keys, n_visible.data(), d.top_k,
                  selected.data(), ss, n_selected.data(), reinterpret_cast<float*>(scores.data()), cs, q_fp4.data(), nullptr, 0,
                  d.n_heads, d.head_dim, n};
    std::vector<std::int32_t> survivors(tier_rows * ops::indexer::survivor_capacity(p) + 1, survivor_guard);
    p.survivors = survivors.data();
    p.survivor_stride = ops::indexer::survivor_capacity(p);
    be.run(e, p);
    run_result r;
    for (int s = 0; s < n; ++s) {
      const int v = n_visible[std::size_t(s)], k = n_selected[std::size_t(s)];
      r.padding_intact &= k == std::min(v, d.top_k);
      if (k < 0 || k > d.top_k) {
        r.padding_intact = false;
        r.rows.emplace_back();
        continue;
      }
      r.rows.push_back(slot_bytes(reinterpret_cast<const float*>(scores.data()) + std::size_t(s) * cs, v,
                                  selected.data() + std::size_t(s) * ss, k));
    }
    for (std::size_t s = 0; s < tier_rows; ++s) {
      const bool live = s < std::size_t(n);
      const std::size_t k = live && n_selected[s] >= 0 ? std::size_t(n_selected[s]) : 0;
      for (std::size_t j = live ? k : 0; j < ss; ++j) r.padding_intact &= selected[s * ss + j] == id_sentinel;
      for (std::size_t j = live ? std::size_t(n_visible[s]) : 0; j < cs; ++j) r.padding_intact &= scores[s * cs + j] == out_sentinel;
      if (!live) r.padding_intact &= n_selected[s] == id_sentinel;
    }
    r.padding_intact &= survivors.back() == survivor_guard && scores.back() == out_sentinel;
    return r;
  }

  static ops::indexer::replay::row_result replay_row(const data& d, int id) {
    return ops::indexer::replay::row(d.q[std::size_t(id)].data(), d.w[std::size_t(id)].data(), d.weight_scale, d.keys.data(),
                                     std::size_t(d.head_dim), d.n_visible[std::size_t(id)], d.n_heads, d.head_dim, d.top_k);
  }

  static std::vector<std::byte> replay(const entry&, const data& d, int pool_row) {
    const auto want = replay_row(d, pool_row);
    return slot_bytes(want.scores.data(), int(want.scores.size()), want.selected.data(), int(want.selected.size()));
  }

  static std::vector<float> outputs(const std::vector<std::byte>& row) {
    std::vector<float> v(row.size() / 4);
    std::memcpy(v.data(), row.data(), row.size());
    return v;
  }

  /// The oracle, in double precision and from the reference's own rounding helpers:
  /// - the transformed queries: ref::hadamard_fp4_roundtrip of each head (the reference's FP4
  ///   decisions). A float Hadamard output differs from the double one by at most
  ///   δ = (log2 n + 2)u·Σ|v|/sqrt(n) (the addition levels, rsqrt_f32's 0.5 ulp and the product),
  ///   so where one lies within δ(×1.01) of a decision point (or its block's amax within δ of a
  ///   scale step) the reference may decide otherwise: the row's scores are then not compared
  ///   (vanishingly rare on full-mantissa inputs; the DS4 reference test counts them).
  /// - each score within (ceil(n/32) + 5 + 2 + n_heads)u·Σ_h|w'_h|·A_h (×1.01) of the double
  ///   formula: per head ceil(n/32) lane fmaf and 5 butterfly additions over A_h = Σ_d|q'_hd·k_d|,
  ///   relu 1-Lipschitz, w'_h = w_h ⊗ weight_scale 2u, the n_heads-term fmaf chain u per term;
  /// - the selection: exactly the top k of the row's own float scores (ties to the lowest id,
  ///   ascending), by an independent stable sort; and (where the double scores' k-th and k+1-th
  ///   are further apart than twice the bound) the top k of the double scores.
  static std::string oracle(const entry&, const data& d, int pool_row, const std::vector<std::byte>& got) {
    const int nh = d.n_heads, hd = d.head_dim, nv = d.n_visible[std::size_t(pool_row)];
    const int k = std::min(nv, d.top_k);
    if (got.size() != 4 * std::size_t(nv + k)) return "the slot holds " + std::to_string(got.size() / 4) + " values";
    std::vector<float> scores(static_cast<std::size_t>(nv));
    std::vector<std::int32_t> selected(static_cast<std::size_t>(k));
    std::memcpy(scores.data(), got.data(), 4 * scores.size());
    std::memcpy(selected.data(), got.data() + 4 * scores.size(), 4 * selected.size());
    if (selected != ops::indexer::replay::top_k(scores.data(), nv, d.top_k)) return "the selection is not the top k of the scores";
    const double u = 0x1p-24;
    std::vector<double> qf(std::size_t(nh) * std::size_t(hd));
    for (int h = 0; h < nh; ++h) {
      const float* v = d.q[std::size_t(pool_row)].data() + std::size_t(h) * std::size_t(hd);
      double* y = qf.data() + std::size_t(h) * std::size_t(hd);
      double abs_sum = 0;
      for (int j = 0; j < hd; ++j) y[j] = v[j], abs_sum += std::fabs(double(v[j]));
      std::vector<double> pre(y, y + hd);
      ref::hadamard_inplace(pre.data(), hd);
      ref::hadamard_fp4_roundtrip(y, hd);
      const double delta = (std::log2(double(hd)) + 2) * u * abs_sum / std::sqrt(double(hd)) * 1.01;
      const int block = std::min(hd, 32);
      for (int b0 = 0; b0 < hd; b0 += block) {
        double amax = 7.052966104933725e-38;
        for (int j = b0; j < b0 + block; ++j) amax = std::max(amax, std::fabs(pre[std::size_t(j)]));
        const double scale = std::ldexp(1.0, ref::ceil_log2(amax / 6.0));
        if (std::fabs(amax - 6 * scale) <= delta || std::fabs(amax - 3 * scale) <= delta) return {};  // ambiguous scale
        for (int j = b0; j < b0 + block; ++j)
          for (double m : {0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0})
            if (std::fabs(std::fabs(pre[std::size_t(j)]) - m * scale) <= delta) return {};  // ambiguous E2M1 decision
      }
    }
    std::vector<double> want(static_cast<std::size_t>(nv));
    double worst_bound = 0;
    for (int c = 0; c < nv; ++c) {
      double s = 0, mag = 0;
      for (int h = 0; h < nh; ++h) {
        double dot = 0, a = 0;
        for (int j = 0; j < hd; ++j) {
          const double t = qf[std::size_t(h * hd + j)] * double(d.keys[std::size_t(c) * std::size_t(hd) + std::size_t(j)]);
          dot += t, a += std::fabs(t);
        }
        const double wh = double(d.w[std::size_t(pool_row)][std::size_t(h)]) * double(d.weight_scale);
        s += std::max(0.0, dot) * wh;
        mag += std::fabs(wh) * a;
      }
      want[std::size_t(c)] = s;
      const double bound = ((hd + 31) / 32 + 7 + nh) * u * mag * 1.01;
      worst_bound = std::max(worst_bound, bound);
      if (!(std::fabs(double(scores[std::size_t(c)]) - s) <= bound))
        return "key " + std::to_string(c) + ": score " + std::to_string(scores[std::size_t(c)]) + ", ref " + std::to_string(s) +
               ", bound " + std::to_string(bound);
    }
    if (k < nv) {
      std::vector<double> sorted = want;
      std::nth_element(sorted.begin(), sorted.begin() + k, sorted.end(), std::greater<>());
      const double kth = *std::min_element(sorted.begin(), sorted.begin() + k), next = sorted[std::size_t(k)];
      if (kth - next > 2 * worst_bound) {
        std::vector<std::int32_t> ids;
        for (int c = 0; c < nv; ++c)
          if (want[std::size_t(c)] >= kth) ids.push_back(c);
        if (ids != selected) return "the selection is not the top k of the double-precision scores";
      }
    }
    return {};
  }

  static op::problem to_device(const entry& e, const op::problem& p, device_mover& m) {
    const std::size_t rows = std::size_t(e.tier), width = std::size_t(p.n_heads) * std::size_t(p.head_dim);
    auto q = p;
    q.q = reinterpret_cast<const float*>(m.in(p.q, 4 * rows * p.q_stride));
    q.head_weights = reinterpret_cast<const float*>(m.in(p.head_weights, 4 * rows * p.w_stride));
    q.keys = reinterpret_cast<const float*>(m.in(p.keys, 4 * std::size_t(p.n_keys) * p.key_stride));
    q.n_visible = reinterpret_cast<const std::int32_t*>(m.in(p.n_visible, 4 * rows));
    q.selected = reinterpret_cast<std::int32_t*>(m.inout(p.selected, 4 * rows * p.sel_stride));
    q.n_selected = reinterpret_cast<std::int32_t*>(m.inout(p.n_selected, 4 * rows));
    q.scores = reinterpret_cast<float*>(m.inout(p.scores, 4 * (rows * p.score_stride + 1)));
    q.q_fp4 = reinterpret_cast<float*>(m.inout(p.q_fp4, 4 * rows * width));
    // The survivor workspace has one guard entry past the last row.
    q.survivors = reinterpret_cast<std::int32_t*>(m.inout(p.survivors, 4 * (rows * p.survivor_stride + 1)));
    return q;
  }
};

}  // namespace ordo::test
