/// The compressor's sequence driver, as the layer step runs the family (docs/engine.md H3–H4,
/// C3, C6, C11–C12): a case is a token sequence's projected kv / score rows (full-mantissa, mixed
/// magnitude; scores within a few octaves so softmaxes are not one-hot), the APE bias and the
/// compressor norm; the rows are stored pass by pass (each pass at the smallest store tier that
/// holds it) and, per row in chronological order, every completed window is emitted. Used by the
/// chronological-state property, the mutation checks and compressor_ref_test. Runners let a test
/// substitute a mutant for a registry entry.
#pragma once
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "../drivers/data.hpp"
#include "emit_bound.hpp"
#include "ordo/ops/compressor/compressor.hpp"
#include "ordo/ops/compressor/replay.hpp"
#include "ordo/ops/rope/table.hpp"
#include "ordo/registry/table.hpp"

namespace ordo::test::compressor {

using ops::compressor::coff_of;
using ops::compressor::emit_problem;
using ops::compressor::emitted;
using ops::compressor::ratio;
using ops::compressor::ratio_of;
using ops::compressor::store_problem;
using store_entry = registry::entry<ops::compressor::store_op>;
using emit_entry = registry::entry<ops::compressor::emit_op>;

/// The largest store tier: the look-ahead the ring holds.
inline constexpr int slack = ops::compressor::store_op::tiers::largest;

inline const store_entry& store_spec(int tier, ratio g) {
  return registry::find<ops::compressor::store_op>("compressor.store.r" + std::to_string(tier) + "." +
                                                   std::string(ordo_name(g)));
}
inline const emit_entry& emit_spec(ratio g, std::string_view order, emitted rows = emitted::attention) {
  return registry::find<ops::compressor::emit_op>("compressor.emit." + std::string(ordo_name(g)) + "." + std::string(order) +
                                                  "." + std::string(ordo_name(rows)));
}
/// The entry's Order name (its second axis).
inline std::string_view order_of(const emit_entry& e) { return e.axes[1].view(); }

inline float sentinel() { return std::bit_cast<float>(out_sentinel); }
inline bool is_sentinel(float v) { return std::bit_cast<std::uint32_t>(v) == out_sentinel; }

struct seq_case {
  ratio geometry = ratio::r4;
  int d = 512;
  std::vector<float> ape, norm;            // [ratio][W], [d]
  std::vector<std::vector<float>> kv, sc;  // per position: W floats
  int width() const { return coff_of(geometry) * d; }
  int positions() const { return int(kv.size()); }
};

inline seq_case make_case(ratio g, int d, int positions, std::uint64_t seed) {
  seq_case c;
  c.geometry = g;
  c.d = d;
  quant::splitmix64 rng{seed};
  c.ape = mixed_floats(rng, std::size_t(ratio_of(g)) * std::size_t(c.width()), 1);
  c.norm = mixed_floats(rng, std::size_t(d), 2);
  for (int p = 0; p < positions; ++p) {
    c.kv.push_back(mixed_floats(rng, std::size_t(c.width())));
    c.sc.push_back(mixed_floats(rng, std::size_t(c.width()), 2));
  }
  return c;
}

/// The ring depth the runtime gives a layer with `look_ahead` rows (docs/engine.md §2).
inline std::int64_t ring_rows_for(ratio g, int look_ahead) {
  const int r = ratio_of(g), reach = look_ahead + (g == ratio::r4 ? 7 : 127);  // windows w − 1 and w on ratio 4
  return std::int64_t(r) * ((reach + r - 1) / r);
}

/// The ring: kv 0 and score −inf at every live column, `pad` more NaN floats per row.
struct ring {
  std::int64_t rows;
  std::size_t stride;
  std::vector<float> kv, score;
  ring(std::int64_t rows_, int width, std::size_t pad) : rows(rows_), stride(std::size_t(width) + pad) {
    kv.assign(std::size_t(rows) * stride, std::numeric_limits<float>::quiet_NaN());
    score = kv;
    for (std::int64_t s = 0; s < rows; ++s)
      for (int j = 0; j < width; ++j) {
        kv[std::size_t(s) * stride + std::size_t(j)] = 0.0f;
        score[std::size_t(s) * stride + std::size_t(j)] = -std::numeric_limits<float>::infinity();
      }
  }
  ops::compressor::replay::ring_view view() const { return {kv.data(), score.data(), stride, rows}; }
};

using store_runner = std::function<void(const store_entry&, const store_problem&)>;
using emit_runner = std::function<void(const emit_entry&, const emit_problem&)>;
inline void run_store_entry(const store_entry& e, const store_problem& p) { e.run_cpu(p); }
inline void run_emit_entry(const emit_entry& e, const emit_problem& p) { e.run_cpu(p); }

/// One store pass of positions first..first+n−1 of the case (inputs padded by in_pad NaN floats,
/// rows past n NaN).
inline void store_pass(const store_entry& e, const seq_case& c, ring& g, int first, int n, std::size_t in_pad = 0,
                       const store_runner& exec = run_store_entry) {
  if (n < 1 || n > e.tier) throw std::invalid_argument("compressor store: row count outside the tier");
  const std::size_t w = std::size_t(c.width()), is = w + in_pad;
  std::vector<float> kv(std::size_t(e.tier) * is, std::numeric_limits<float>::quiet_NaN()), sc = kv;
  for (int i = 0; i < n; ++i) {
    std::memcpy(kv.data() + std::size_t(i) * is, c.kv[std::size_t(first + i)].data(), w * 4);
    std::memcpy(sc.data() + std::size_t(i) * is, c.sc[std::size_t(first + i)].data(), w * 4);
  }
  exec(e, store_problem{kv.data(), sc.data(), is, c.ape.data(), g.kv.data(), g.score.data(), g.stride, g.rows, first,
                        c.width(), n});
}

/// The (cos, sin) table of the window that ends at p (compressed layers: base 160000 with YaRN;
/// all 64 dims' pairs, of which an emission reads its n_rot).
inline std::vector<float> table_for(ratio geometry, std::int64_t p) {
  ops::rope::angles a;
  a.base = 160000.0;
  a.yarn = true;
  std::vector<float> t(std::size_t(a.n_rot));
  a.fill(double(p + 1 - ratio_of(geometry)), t.data());
  return t;
}

struct emitted_row {
  std::vector<float> row;
  bool padding_intact = true;
};

/// Emits the window that ends at p into a fresh row (out_pad sentinel floats after it).
inline emitted_row emit_at(const emit_entry& e, const seq_case& c, const ring& g, std::int64_t p, std::size_t out_pad = 0,
                           const emit_runner& exec = run_emit_entry) {
  const auto table = table_for(c.geometry, p);
  std::vector<float> out(std::size_t(c.d) + out_pad, sentinel());
  exec(e, emit_problem{g.kv.data(), g.score.data(), g.stride, g.rows, p, c.norm.data(), eps, table.data(), n_rot, out.data(), c.d});
  emitted_row r;
  r.row.assign(out.begin(), out.begin() + c.d);
  for (std::size_t j = std::size_t(c.d); j < out.size(); ++j) r.padding_intact &= is_sentinel(out[j]);
  return r;
}

inline std::vector<float> replay_emit(const emit_entry& e, const seq_case& c, const ring& g, std::int64_t p) {
  const auto table = table_for(c.geometry, p);
  return ops::compressor::replay::emit(c.geometry, order_of(e), g.view(), p, c.d, c.norm.data(), eps, table.data(), n_rot,
                                       e.info.rows);
}

/// A whole sequence: passes of the given sizes, then, per row in order, the emission of every
/// window it completes.
struct sequence_result {
  std::vector<std::vector<float>> compressed;  // row c pools window c
  std::vector<float> kv, score;                // the final ring
};

inline sequence_result run_sequence(const emit_entry& emit, const seq_case& c, const std::vector<int>& passes,
                                    std::int64_t ring_rows, const store_runner& store_exec = run_store_entry) {
  ring g(ring_rows, c.width(), 0);
  sequence_result r;
  int first = 0;
  for (int n : passes) {
    const int tier = tier::tier_for<ops::compressor::store_op::tiers>(n);
    store_pass(store_spec(tier, c.geometry), c, g, first, n, 0, store_exec);
    for (int i = 0; i < n; ++i) {
      const std::int64_t p = first + i;
      if ((p + 1) % ratio_of(c.geometry) == 0) r.compressed.push_back(emit_at(emit, c, g, p).row);
    }
    first += n;
  }
  r.kv = g.kv;
  r.score = g.score;
  return r;
}

inline bool same_sequence(const sequence_result& a, const sequence_result& b) {
  if (a.compressed.size() != b.compressed.size()) return false;
  for (std::size_t c = 0; c < a.compressed.size(); ++c)
    if (!same_bits(a.compressed[c], b.compressed[c])) return false;
  return same_bits(a.kv, b.kv) && same_bits(a.score, b.score);
}

}  // namespace ordo::test::compressor
