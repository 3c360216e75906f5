/// Test harness of rope for the generic drivers: order-sensitive rows, DS4 and odd head shapes,
/// real position tables of plain and YaRN layers (ops/rope/table.hpp), runs that rotate chosen
/// pool rows in chosen slots of a sentinel-padded buffer with NaN-padded tables, the host replay
/// and an oracle in double. A slot's bytes: its whole row after rotation (the non-rotated dims
/// included, so P2 also holds them to their input bits).
#pragma once
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "../drivers/data.hpp"
#include "../drivers/properties.hpp"
#include "ordo/ops/rope/replay.hpp"
#include "ordo/ops/rope/rope.hpp"
#include "ordo/ops/rope/table.hpp"

namespace ordo::test {

template <>
struct harness<ops::rope::op> {
  using op = ops::rope::op;
  using entry = registry::entry<op>;
  static constexpr int order_axis = -1;    // no reduction, no order
  static constexpr int untiered_rows = 1;  // unused: every rope spec has a tier

  struct data {
    int n_heads = 1, head_dim = 64, n_rot = 64;
    std::vector<std::vector<float>> pool;    // rows of n_heads * head_dim
    std::vector<std::vector<float>> tables;  // per pool row: n_rot floats (cos, sin pairs)
    std::size_t width() const { return std::size_t(n_heads) * std::size_t(head_dim); }
  };
  struct layout {
    std::size_t x_pad = 0, table_pad = 0;  // extra floats per row: sentinel (x), NaN (tables)
  };

  /// Pool rows at random positions up to 2^20, on a ratio-0 (plain) or compressed (YaRN) layer.
  static data make(int n_heads, int head_dim, int n_rot, int pool, bool yarn, std::uint64_t seed) {
    data d{n_heads, head_dim, n_rot, {}, {}};
    quant::splitmix64 rng{seed};
    const ops::rope::angles a{.n_rot = n_rot, .base = yarn ? 160000.0 : 10000.0, .yarn = yarn};
    for (int i = 0; i < pool; ++i) {
      std::vector<float> row(d.width());
      for (auto& v : row) v = mixed_float(rng);
      d.pool.push_back(std::move(row));
      std::vector<float> t(static_cast<std::size_t>(n_rot));
      a.fill(double(rng() % (1u << 20)), t.data());
      d.tables.push_back(std::move(t));
    }
    return d;
  }

  /// DS4 shapes (Q: 64 heads of 512, KV row: 1 of 512, indexer Q: 64 of 128) and odd ones.
  static data draw(const entry&, int pool, int c) {
    int heads = 1, dim = 512, rot = 64;
    switch (c % 4) {
      case 0: heads = 64; break;
      case 1: heads = 64, dim = 128; break;
      case 2: heads = detail::uniform(1, 5), rot = 2 * detail::uniform(1, 19), dim = rot + detail::uniform(0, 49); break;
      default: break;
    }
    const bool yarn = detail::uniform(0, 1) == 1;
    return make(heads, dim, rot, pool, yarn, *rc::gen::resize(100, rc::gen::arbitrary<std::uint64_t>()));
  }

  static layout tight_layout() { return {}; }
  static layout draw_padded_layout() { return {std::size_t(detail::uniform(1, 40)), std::size_t(detail::uniform(0, 9))}; }

  static run_result run(const backend& be, const entry& e, const data& d, const std::vector<int>& ids, const layout& l) {
    const int n = int(ids.size());
    if (n < 1 || n > e.tier) throw std::invalid_argument("rope run: row count outside the tier");
    const std::size_t w = d.width(), xs = w + l.x_pad, ts = std::size_t(d.n_rot) + l.table_pad, rows = std::size_t(e.tier);
    std::vector<std::uint32_t> x(rows * xs, out_sentinel);
    std::vector<float> t(rows * ts, std::numeric_limits<float>::quiet_NaN());
    for (int s = 0; s < n; ++s) {
      const auto id = std::size_t(ids[std::size_t(s)]);
      std::memcpy(x.data() + std::size_t(s) * xs, d.pool.at(id).data(), w * 4);
      std::memcpy(t.data() + std::size_t(s) * ts, d.tables.at(id).data(), std::size_t(d.n_rot) * 4);
    }
    const std::vector<std::uint32_t> before = x;
    be.run(e, {reinterpret_cast<float*>(x.data()), xs, t.data(), ts, d.n_heads, d.head_dim, d.n_rot, n});
    run_result r;
    // Everything but the rotated tails of live rows keeps its bits: padding, rows past n, free dims.
    for (std::size_t s = 0; s < rows; ++s)
      for (std::size_t j = 0; j < xs; ++j) {
        const bool rotated = s < std::size_t(n) && j < w && int(j % std::size_t(d.head_dim)) >= d.head_dim - d.n_rot;
        if (!rotated) r.padding_intact &= x[s * xs + j] == before[s * xs + j];
      }
    for (int s = 0; s < n; ++s) {
      const auto* y = reinterpret_cast<const std::byte*>(x.data() + std::size_t(s) * xs);
      r.rows.emplace_back(y, y + 4 * w);
    }
    return r;
  }

  static std::vector<float> outputs(const std::vector<std::byte>& row) {
    std::vector<float> v(row.size() / sizeof(float));
    std::memcpy(v.data(), row.data(), row.size());
    return v;
  }

  static std::vector<std::byte> replay(const entry& e, const data& d, int pool_row) {
    const auto y = ops::rope::replay::row(d.pool[std::size_t(pool_row)].data(), d.tables[std::size_t(pool_row)].data(), d.n_heads,
                                          d.head_dim, d.n_rot, e.info.turn == ops::rope::direction::inverse);
    std::vector<std::byte> bytes(y.size() * 4);
    std::memcpy(bytes.data(), y.data(), bytes.size());
    return bytes;
  }

  /// The oracle: the exact rotation in double by the row's float (c, s), y0 = x0·c − x1·s,
  /// y1 = x0·s + x1·c. The kernel rounds the product x1·s (or x1·c) once and the fmaf once:
  /// |y0 − y0_ref| <= u·|x1·s| + u·(|x0·c| + |x1·s|)(1 + u) <= 2.01u·(|x0| + |x1|), as |c|, |s| <= 1
  /// (float cos and sin never exceed 1). The free dims must be the input exactly.
  static std::string oracle(const entry& e, const data& d, int pool_row, const std::vector<std::byte>& got_bytes) {
    const auto got = outputs(got_bytes);
    const float* x = d.pool[std::size_t(pool_row)].data();
    const float* t = d.tables[std::size_t(pool_row)].data();
    const double sign = e.info.turn == ops::rope::direction::inverse ? -1.0 : 1.0;
    for (int h = 0; h < d.n_heads; ++h) {
      const std::size_t base = std::size_t(h) * std::size_t(d.head_dim);
      for (int j = 0; j < d.head_dim - d.n_rot; ++j)
        if (std::memcmp(&got[base + std::size_t(j)], &x[base + std::size_t(j)], 4) != 0)
          return "head " + std::to_string(h) + " free dim " + std::to_string(j) + " changed";
      for (int k = 0; k < d.n_rot / 2; ++k) {
        const std::size_t at = base + std::size_t(d.head_dim - d.n_rot + 2 * k);
        const double x0 = x[at], x1 = x[at + 1], c = t[2 * k], s = sign * t[2 * k + 1];
        const double want[2] = {x0 * c - x1 * s, x0 * s + x1 * c};
        const double bound = 2.01 * 0x1p-24 * (std::fabs(x0) + std::fabs(x1));
        for (int m = 0; m < 2; ++m)
          if (!(std::fabs(double(got[at + std::size_t(m)]) - want[m]) <= bound))
            return "head " + std::to_string(h) + " pair " + std::to_string(k) + ": got " + std::to_string(got[at + std::size_t(m)]) +
                   " ref " + std::to_string(want[m]) + " bound " + std::to_string(bound);
      }
    }
    return {};
  }

  static op::problem to_device(const entry& e, const op::problem& p, device_mover& m) {
    const std::size_t rows = std::size_t(e.tier);
    auto q = p;
    q.x = reinterpret_cast<float*>(m.inout(p.x, 4 * p.x_stride * rows));
    q.cos_sin = reinterpret_cast<const float*>(m.in(p.cos_sin, 4 * p.table_stride * rows));
    return q;
  }
};

}  // namespace ordo::test
