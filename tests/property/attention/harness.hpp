/// Test harness of attention for the generic drivers (tests/property/drivers): query rows of
/// order-sensitive floats, a KV table, each query row's list of entries (invisible ones where the
/// spec checks visibility), DS4 and odd shapes; runs with chosen pool rows in chosen slots,
/// padded strides, NaN-poisoned padding, KV rows and list tails no visible entry names, poisoned
/// rows past the live count, a NaN-filled workspace with a guard float, sentinel-filled outputs;
/// the host replay (ops/attention/replay.hpp) and the double-precision oracle with its derived
/// bound. A slot's bytes: its n_heads × head_dim output floats.
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
#include "ordo/ops/attention/attention.hpp"
#include "ordo/ops/attention/replay.hpp"

namespace ordo::test {

template <>
struct harness<ops::attention::op> {
  using op = ops::attention::op;
  using entry = registry::entry<op>;
  static constexpr int order_axis = 1;     // (tier, order, visibility, schedule)
  static constexpr int untiered_rows = 1;  // unused: every attention spec has a tier

  struct data {
    int n_heads = 1, head_dim = 32, n_kv = 1;
    float scale = 1.0f;
    std::vector<float> sinks;                      // [n_heads]
    std::vector<float> kv;                         // [n_kv][head_dim], dense
    std::vector<std::vector<float>> pool;          // query rows of n_heads * head_dim
    std::vector<std::vector<std::int32_t>> lists;  // per pool row: KV rows, −1 invisible
    std::size_t width() const { return std::size_t(n_heads) * std::size_t(head_dim); }
  };
  struct layout {
    std::size_t q_pad = 0, kv_pad = 0, out_pad = 0, gather_pad = 0;  // extra floats / entries per row, poisoned
    int extra_listed = 0;  // max_listed past the longest live list (the split grid's extra chunks)
  };

  /// Values have full mantissas and exponents over 2^-2..2^2 (q scaled by 2^-3, exactly), so the
  /// logits spread over a range where the softmax weights matter; sinks over 2^-4..2^4. A list has
  /// 0..max_list entries drawn from the table (repeats allowed); with `invisible`, about a quarter
  /// of them are −1.
  static data make(int n_heads, int head_dim, int n_kv, int pool, int max_list, bool invisible, std::uint64_t seed) {
    data d;
    d.n_heads = n_heads, d.head_dim = head_dim, d.n_kv = n_kv;
    d.scale = float(1.0 / std::sqrt(double(head_dim)));
    quant::splitmix64 rng{seed};
    for (int h = 0; h < n_heads; ++h) d.sinks.push_back(mixed_float(rng, 4));
    d.kv.resize(std::size_t(n_kv) * std::size_t(head_dim));
    for (auto& v : d.kv) v = mixed_float(rng, 2);
    for (int i = 0; i < pool; ++i) {
      std::vector<float> q(d.width());
      for (auto& v : q) v = mixed_float(rng, 2) * 0.125f;
      d.pool.push_back(std::move(q));
      std::vector<std::int32_t> list(std::size_t(rng() % std::uint64_t(max_list + 1)));
      for (auto& e : list) e = invisible && rng() % 4 == 0 ? -1 : std::int32_t(rng() % std::uint64_t(n_kv));
      d.lists.push_back(std::move(list));
    }
    return d;
  }

  static bool general(const entry& e) { return e.info.sees == ops::attention::visibility::general; }

  /// DS4's whole head (64 × 512 over a table of 2176, every list a full 128 raw + 512 selected
  /// history) on case 5 of every property of a run of at most two rows (the E2 the device must
  /// show at DS4 size; the CPU side of a 64-head row costs a fraction of a second); one DS4 512-wide head
  /// on a sixth of the other cases, odd widths otherwise; lists up to 2–5 chunks so chunk
  /// boundaries, partial last chunks and empty lists all occur. Invisible entries only where the
  /// spec checks visibility.
  static data draw(const entry& e, int pool, int c) {
    const std::uint64_t seed = *rc::gen::resize(100, rc::gen::arbitrary<std::uint64_t>());
    if (c % 40 == 5 && pool <= 2) {
      auto d = make(64, 512, 2176, pool, 640, general(e), seed);
      for (auto& list : d.lists) {
        const std::size_t drawn = list.size();
        list.resize(640);
        for (std::size_t j = drawn; j < list.size(); ++j) list[j] = std::int32_t((j * 131 + seed) % 2176);
      }
      return d;
    }
    const bool ds4 = detail::uniform(0, 5) == 0;
    const int head_dim = ds4 ? 512 : detail::uniform(1, 130);
    const int n_heads = ds4 ? 1 : detail::uniform(1, 4);
    const int max_list = ds4 ? 2 * e.info.chunk + 8 : detail::uniform(0, 5 * e.info.chunk);
    return make(n_heads, head_dim, detail::uniform(1, 300), pool, max_list, general(e), seed);
  }

  /// P5's data: two heads of 96 over lists of 100–300 visible entries (several chunks of either Order).
  static data tail_data(const entry&, int rows, std::uint64_t seed) {
    auto d = make(2, 96, 200, rows, 300, false, seed);
    for (auto& list : d.lists) list.resize(std::max<std::size_t>(list.size(), 100), 5);
    return d;
  }

  static layout tight_layout() { return {}; }
  static layout draw_padded_layout() {
    return {std::size_t(detail::uniform(1, 40)), std::size_t(detail::uniform(1, 40)), std::size_t(detail::uniform(1, 40)),
            std::size_t(detail::uniform(1, 40)), detail::uniform(1, 192)};  // up to 3 extra chunks of kv64
  }

  static run_result run(const backend& be, const entry& e, const data& d, const std::vector<int>& ids, const layout& l) {
    const int n = int(ids.size());
    if (n < 1 || n > e.tier) throw std::invalid_argument("attention run: row count outside the tier");
    const std::size_t w = d.width(), hd = std::size_t(d.head_dim);
    const std::size_t qs = w + l.q_pad, os = w + l.out_pad, ks = hd + l.kv_pad, tier_rows = std::size_t(e.tier);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    int longest = 0;
    for (int id : ids) longest = std::max(longest, int(d.lists.at(std::size_t(id)).size()));
    const int max_listed = longest + l.extra_listed;
    const std::size_t gs = std::size_t(max_listed) + l.gather_pad;
    // Two poisoned rows past the table: list tails and rows past the live count point at them.
    const std::int32_t poisoned_row = d.n_kv;
    std::vector<float> kv((std::size_t(d.n_kv) + 2) * ks, nan);
    for (int r = 0; r < d.n_kv; ++r) std::memcpy(kv.data() + std::size_t(r) * ks, d.kv.data() + std::size_t(r) * hd, hd * 4);
    std::vector<float> q(tier_rows * qs, nan);
    std::vector<std::int32_t> gather(tier_rows * gs + 1, poisoned_row);
    std::vector<std::int32_t> n_listed(tier_rows, std::int32_t(max_listed));
    for (int s = 0; s < n; ++s) {
      const auto id = std::size_t(ids[std::size_t(s)]);
      std::memcpy(q.data() + std::size_t(s) * qs, d.pool[id].data(), w * 4);
      std::copy(d.lists[id].begin(), d.lists[id].end(), gather.begin() + std::ptrdiff_t(std::size_t(s) * gs));
      n_listed[std::size_t(s)] = std::int32_t(d.lists[id].size());
    }
    std::vector<std::uint32_t> out(tier_rows * os, out_sentinel);
    op::problem p{q.data(), qs, kv.data(), ks, d.n_kv + 2, gather.data(), gs, n_listed.data(), max_listed,
                  d.sinks.data(), d.scale, reinterpret_cast<float*>(out.data()), os, nullptr, d.n_heads, d.head_dim, n};
    std::vector<float> workspace(e.info.workspace(p) + 1, nan);
    p.workspace = workspace.data();
    be.run(e, p);
    run_result r;
    for (int s = 0; s < n; ++s) {
      std::vector<std::byte> row(4 * w);
      std::memcpy(row.data(), out.data() + std::size_t(s) * os, 4 * w);
      r.rows.push_back(std::move(row));
    }
    for (std::size_t s = 0; s < tier_rows; ++s)
      for (std::size_t j = s < std::size_t(n) ? w : 0; j < os; ++j) r.padding_intact &= out[s * os + j] == out_sentinel;
    r.padding_intact &= std::isnan(workspace.back());
    return r;
  }

  static std::vector<float> as_floats(const std::vector<std::byte>& row) {
    std::vector<float> v(row.size() / 4);
    std::memcpy(v.data(), row.data(), row.size());
    return v;
  }
  static std::vector<float> outputs(const std::vector<std::byte>& row) { return as_floats(row); }

  static std::vector<std::byte> replay(const entry& e, const data& d, int pool_row) {
    const auto y = ops::attention::replay::row(d.pool[std::size_t(pool_row)].data(), d.n_heads, d.head_dim, d.kv.data(),
                                               std::size_t(d.head_dim), d.lists[std::size_t(pool_row)], d.sinks.data(),
                                               d.scale, e.info.chunk);
    std::vector<std::byte> bytes(4 * y.size());
    std::memcpy(bytes.data(), y.data(), bytes.size());
    return bytes;
  }

  /// The oracle: every output element within a bound derived for float32 vs double (u = 2^-24,
  /// first order; ×1.01 covers the rest), per head over its visible entries:
  /// - z_j: each product q_d·r_d passes at most ceil(n/32) lane fmaf roundings and 5 butterfly
  ///   additions, then the product by τ (the float τ's own rounding, one more u):
  ///   |Δz_j| <= δz := (ceil(n/32) + 7)u·max_j τΣ|q·r_j|. m is one of z_j or s: |Δm| <= δz.
  /// - e_j = exp(z_j − m): the subtraction adds u·|z_j − m|, exp_f32 0.76 ulp <= 1.52u relative:
  ///   relative error <= ε := 2δz + u·max_j|z_j − m| + 1.52u (the sink term too).
  /// - den: positive terms through at most D = chunk + n_chunks + 1 additions (ε + D·u relative);
  ///   acc_d: at most D fmaf/additions per term: |Δ| <= (ε + D·u)·Σ e_j|r_jd|; out_d = acc_d / den
  ///   one more rounding. So |Δout_d| <= (2ε + (2D + 1)u)·Σ_j w_j|r_jd| with w_j the exact softmax
  ///   weights; the double reference's own error is ~2^-53 relative, far inside the margin.
  static std::string oracle(const entry& e, const data& d, int pool_row, const std::vector<std::byte>& got) {
    const auto y = as_floats(got);
    const int n = d.head_dim, chunk = e.info.chunk;
    const auto& list = d.lists[std::size_t(pool_row)];
    std::vector<const float*> rows;
    for (std::int32_t at : list)
      if (at >= 0) rows.push_back(d.kv.data() + std::size_t(at) * std::size_t(n));
    const double u = 0x1p-24, tau = double(d.scale);
    const int chunks = int((list.size() + std::size_t(chunk) - 1) / std::size_t(chunk));
    const double depth = chunk + chunks + 1;
    for (int h = 0; h < d.n_heads; ++h) {
      const float* q = d.pool[std::size_t(pool_row)].data() + std::size_t(h) * std::size_t(n);
      const double sink = d.sinks[std::size_t(h)];
      std::vector<double> z(rows.size());
      double s_max = 0, m = sink;
      for (std::size_t j = 0; j < rows.size(); ++j) {
        double dot = 0, abs_dot = 0;
        for (int k = 0; k < n; ++k) {
          dot += double(q[k]) * double(rows[j][k]);
          abs_dot += std::fabs(double(q[k]) * double(rows[j][k]));
        }
        z[j] = tau * dot;
        s_max = std::max(s_max, tau * abs_dot);
        m = std::max(m, z[j]);
      }
      const double dz = ((n + 31) / 32 + 7) * u * s_max;
      double spread = std::fabs(sink - m), den = std::exp(sink - m);
      for (double zj : z) {
        spread = std::max(spread, std::fabs(zj - m));
        den += std::exp(zj - m);
      }
      const double k = (2 * (2 * dz + u * spread + 1.52 * u) + (2 * depth + 1) * u) * 1.01;
      for (int dim = 0; dim < n; ++dim) {
        double want = 0, bound = 0;
        for (std::size_t j = 0; j < rows.size(); ++j) {
          const double wj = std::exp(z[j] - m) / den;
          want += wj * double(rows[j][dim]);
          bound += k * wj * std::fabs(double(rows[j][dim]));
        }
        const double have = y[std::size_t(h) * std::size_t(n) + std::size_t(dim)];
        if (!(std::fabs(have - want) <= bound))
          return "head " + std::to_string(h) + " dim " + std::to_string(dim) + ": " + std::to_string(have) + ", ref " +
                 std::to_string(want) + ", bound " + std::to_string(bound);
      }
    }
    return {};
  }

  static op::problem to_device(const entry& e, const op::problem& p, device_mover& m) {
    const std::size_t rows = std::size_t(e.tier);
    auto q = p;
    q.q = reinterpret_cast<const float*>(m.in(p.q, 4 * rows * p.q_stride));
    q.kv = reinterpret_cast<const float*>(m.in(p.kv, 4 * std::size_t(p.n_kv) * p.kv_stride));
    // The gather buffer has one entry past the last row; the workspace one guard float.
    q.gather = reinterpret_cast<const std::int32_t*>(m.in(p.gather, 4 * (rows * p.gather_stride + 1)));
    q.n_listed = reinterpret_cast<const std::int32_t*>(m.in(p.n_listed, 4 * rows));
    q.sinks = reinterpret_cast<const float*>(m.in(p.sinks, 4 * std::size_t(p.n_heads)));
    q.out = reinterpret_cast<float*>(m.inout(p.out, 4 * rows * p.out_stride));
    q.workspace = reinterpret_cast<float*>(m.inout(p.workspace, 4 * (e.info.workspace(p) + 1)));
    return q;
  }
};

}  // namespace ordo::test
