/// Test harness for compressor specs: a case is a token sequence's projected kv / score rows
/// (full-mantissa, mixed magnitude; scores within a few octaves so softmaxes are not one-hot), the
/// APE bias and the compressor norm. A sequence driver stores the rows pass by pass (each pass at
/// a chosen tier) and emits, per row in chronological order, every completed window, exactly as
/// the layer step does (docs/engine.md H3–H4, C3, C11); it returns the emitted rows and the ring.
#pragma once
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <stdexcept>
#include <vector>

#include "op_test_inputs.hpp"
#include "ordo/ops/compressor/entries.hpp"
#include "ordo/ops/compressor/replay.hpp"
#include "ordo/ops/rope/table.hpp"

namespace ordo::test::compressor {

using ops::compressor::emit_entry;
using ops::compressor::emit_problem;
using ops::compressor::ratio;
using ops::compressor::store_entry;
using ops::compressor::store_problem;
using ops::compressor::coff_of;
using ops::compressor::ratio_of;

inline constexpr float eps = 1e-6f;
inline constexpr int n_rot = 64;

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

/// The ring depth the runtime gives a layer with `slack` rows of look-ahead (docs/engine.md §2).
inline std::int64_t ring_rows_for(ratio g, int slack) {
  const int r = ratio_of(g), reach = slack + (g == ratio::r4 ? 7 : 127);  // windows w − 1 and w on ratio 4
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

/// Runs one store pass of rows first..first+n−1 of the case at `tier` (inputs padded by in_pad NaN
/// floats, rows past n NaN). A runner lets a test substitute a mutant.
using store_runner = std::function<void(const store_entry&, const store_problem&)>;
inline void run_store_entry(const store_entry& e, const store_problem& p) { e.run(p); }

inline void store_pass(const store_entry& e, const seq_case& c, ring& g, int first, int n, std::size_t in_pad = 0,
                       const store_runner& exec = run_store_entry) {
  if (n < 1 || n > e.tier) throw std::invalid_argument("compressor store: row count outside the tier");
  const std::size_t w = std::size_t(c.width()), is = w + in_pad;
  std::vector<float> kv(std::size_t(e.tier) * is, std::numeric_limits<float>::quiet_NaN()), sc = kv;
  for (int i = 0; i < n; ++i) {
    std::memcpy(kv.data() + std::size_t(i) * is, c.kv[std::size_t(first + i)].data(), w * 4);
    std::memcpy(sc.data() + std::size_t(i) * is, c.sc[std::size_t(first + i)].data(), w * 4);
  }
  const store_problem p{kv.data(), sc.data(), is, c.ape.data(), g.kv.data(), g.score.data(), g.stride, g.rows,
                        first, c.width(), n};
  exec(e, p);
}

/// The (cos, sin) table of the window that ends at p (compressed layers: base 160000 with YaRN).
inline std::vector<float> table_for(ratio geometry, std::int64_t p) {
  ops::rope::angles a;
  a.base = 160000.0;
  a.yarn = true;
  std::vector<float> t(n_rot);
  a.fill(double(p + 1 - ratio_of(geometry)), t.data());
  return t;
}

/// Emits the window that ends at p into a fresh row (out_pad sentinel floats after it); returns
/// the row and whether the padding held.
using emit_runner = std::function<void(const emit_entry&, const emit_problem&)>;
inline void run_emit_entry(const emit_entry& e, const emit_problem& p) { e.run(p); }

struct emitted {
  std::vector<float> row;
  bool padding_intact = true;
};

inline emitted emit_at(const emit_entry& e, const seq_case& c, const ring& g, std::int64_t p, std::size_t out_pad = 0,
                       const emit_runner& exec = run_emit_entry) {
  const auto table = table_for(c.geometry, p);
  std::vector<float> out(std::size_t(c.d) + out_pad, sentinel());
  const emit_problem q{g.kv.data(), g.score.data(), g.stride, g.rows, p, c.norm.data(), eps, table.data(), n_rot,
                       out.data(), c.d};
  exec(e, q);
  emitted r;
  r.row.assign(out.begin(), out.begin() + c.d);
  for (std::size_t j = std::size_t(c.d); j < out.size(); ++j) r.padding_intact &= is_sentinel(out[j]);
  return r;
}

inline std::vector<float> replay_emit(const emit_entry& e, const seq_case& c, const ring& g, std::int64_t p) {
  const auto table = table_for(c.geometry, p);
  return ops::compressor::replay::emit(c.geometry, e.order, g.view(), p, c.d, c.norm.data(), eps, table.data(), n_rot, e.rows);
}

/// A whole sequence: passes of the given sizes (each at the smallest store tier that holds it),
/// then, per row in order, the emission of every window it completes.
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
    const int tier = tier::tier_for<ops::compressor::op::tiers>(n);
    store_pass(ops::compressor::find_store(tier, c.geometry), c, g, first, n, 0, store_exec);
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

}  // namespace ordo::test::compressor
