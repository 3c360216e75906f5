/// Agreement sweeps for compressor (hc and kv_store are on tests/gpu/props): every spec of each family run by a runner
/// under test (the GPU launch, or a mutant) and by the CPU executor on the same inputs — DS4
/// shapes and odd ones, the full tier and partial tiers, padded strides with NaN-poisoned rows
/// past the live count and tight layouts, ring wrap — compared bit for bit: what the spec writes,
/// and (padding_intact, whole rings compared as bytes) everything it must leave alone. A sweep
/// stops at the first difference and names it, so a test can assert both "none" (E2 on the
/// device) and "found" (with_one_bit_flipped's mutant). Host code: the CPU build tests the sweeps
/// themselves (hc_kv_compressor_agreement_test.cpp), the GPU build runs them on the device.
#pragma once
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <iterator>
#include <vector>

#include "../../property/compressor/compressor_harness.hpp"
#include "family_properties.hpp"

namespace ordo::test::gpu_agreement {

struct sweep_result {
  int runs = 0;                  // runs compared (the one that differed not counted)
  std::string first_difference;  // "" when every run agreed
};

/// Row counts for a tier: all of it, one, and one in between.
inline std::vector<int> row_counts(int tier) {
  std::vector<int> n{tier};
  if (tier > 1) n.push_back(1);
  if (tier > 2) n.push_back(tier / 2 + 1);
  return n;
}

/// "" when every slot of `got` has the bits of the same slot of `want`, else which slot differs.
template <class T>
std::string slot_difference(const char* what, const std::vector<std::vector<T>>& got,
                            const std::vector<std::vector<T>>& want) {
  if (got.size() != want.size()) return std::string(what) + ": slot count differs";
  for (std::size_t s = 0; s < got.size(); ++s)
    if (got[s].size() != want[s].size() || std::memcmp(got[s].data(), want[s].data(), got[s].size() * sizeof(T)) != 0)
      return std::string(what) + ": slot " + std::to_string(s) + " differs";
  return "";
}

inline bool same_bytes(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * 4) == 0;
}

/// The label of a difference: spec, run parameters, what differed.
inline std::string at(const std::string& spec, const std::string& params, const std::string& what) {
  return spec + " [" + params + "]: " + what;
}

// ---- compressor.
constexpr int compressor_slack = 16;  // the largest store tier
inline constexpr int compressor_dims[] = {512, 96};
/// The widths of an emit spec's sweep: the attention dims, or (indexer rows: a power of two for
/// the Hadamard, at least the 64 RoPE dims) DS4's indexer_dim 128 and 64.
inline std::vector<int> compressor_dims_of(const ops::compressor::emit_entry& e) {
  if (e.rows == ops::compressor::emitted::indexer) return {128, 64};
  return {std::begin(compressor_dims), std::end(compressor_dims)};
}

/// Every store spec: one pass into a fresh ring with NaN stride padding, at an early position and
/// at one whose pass wraps the ring; the whole rings (padding, other slots) compared as bytes.
inline sweep_result compressor_store_sweep(const compressor::store_runner& under_test) {
  sweep_result r;
  for (const auto& e : ops::compressor::store_entries())
    for (const int n : row_counts(e.tier))
      for (const int d : compressor_dims) {
        const auto rows = compressor::ring_rows_for(e.geometry, compressor_slack);
        for (const int first : {5, int(rows) - 2}) {
          const auto c = compressor::make_case(e.geometry, d, first + n, std::uint64_t(r.runs + 1));
          compressor::ring got(rows, c.width(), 3), want(rows, c.width(), 3);
          compressor::store_pass(e, c, got, first, n, 2, under_test);
          compressor::store_pass(e, c, want, first, n, 2);
          const std::string params = "rows " + std::to_string(n) + ", d " + std::to_string(d) + ", first position " + std::to_string(first);
          if (!same_bytes(got.kv, want.kv)) return {r.runs, at(e.name, params, "kv ring differs")};
          if (!same_bytes(got.score, want.score)) return {r.runs, at(e.name, params, "score ring differs")};
          ++r.runs;
        }
      }
  return r;
}

/// Positions a compressor sweep runs: ratio 4 wraps its 24-row ring twice, ratio 128 its
/// 256-row ring once (the window ending at 383 lies in slots 0..127).
inline int compressor_positions(compressor::ratio g) { return g == compressor::ratio::r4 ? 60 : 384; }

/// Every emit spec: positions stored one by one on the CPU executor (ring stride padded with NaN),
/// and at each position that completes a window the emission under test and the CPU's, the
/// output row followed by 4 sentinel floats. Ratio 4's first window reads the never-written
/// window −1 (score −inf).
inline sweep_result compressor_emit_sweep(const compressor::emit_runner& under_test) {
  sweep_result r;
  for (const auto& e : ops::compressor::emit_entries())
    for (const int d : compressor_dims_of(e)) {
      const auto c = compressor::make_case(e.geometry, d, compressor_positions(e.geometry), std::uint64_t(r.runs + 1));
      compressor::ring g(compressor::ring_rows_for(e.geometry, compressor_slack), c.width(), 3);
      const auto& store = ops::compressor::find_store(1, e.geometry);
      for (int p = 0; p < c.positions(); ++p) {
        compressor::store_pass(store, c, g, p, 1);
        if ((p + 1) % compressor::ratio_of(e.geometry) != 0) continue;
        const auto got = compressor::emit_at(e, c, g, p, 4, under_test), want = compressor::emit_at(e, c, g, p, 4);
        const std::string params = "d " + std::to_string(d) + ", position " + std::to_string(p);
        if (!got.padding_intact) return {r.runs, at(e.name, params, "wrote past the output row")};
        if (!same_bits(got.row, want.row)) return {r.runs, at(e.name, params, "emitted row differs")};
        ++r.runs;
      }
    }
  return r;
}

/// Pass sizes covering `positions` in one of three patterns: all the largest tier, a fixed mix of
/// full and partial tiers, one row each.
inline std::vector<int> compressor_passes(int pattern, int positions) {
  static constexpr int mixed[] = {3, 16, 1, 8, 5, 2, 16, 7, 4, 6, 16, 11};
  std::vector<int> passes;
  for (int left = positions, k = 0; left > 0; ++k) {
    const int want = pattern == 0 ? compressor_slack : pattern == 1 ? mixed[k % std::size(mixed)] : 1;
    passes.push_back(std::min(left, want));
    left -= passes.back();
  }
  return passes;
}

/// The chronological sequence (harness run_sequence: store passes at the smallest tier that holds
/// each, then per row every window it completes) with the store and the emit under test, against
/// the CPU executor's: every emitted row and the final rings, bit for bit. `emits` is the emit
/// entry list under test, in emit_entries()' order.
inline sweep_result compressor_sequence_sweep(const std::vector<ops::compressor::emit_entry>& emits,
                                              const compressor::store_runner& store_under_test) {
  sweep_result r;
  const auto& cpu_emits = ops::compressor::emit_entries();
  for (std::size_t k = 0; k < cpu_emits.size(); ++k)
    for (const int d : compressor_dims_of(cpu_emits[k]))
      for (const int pattern : {0, 1, 2}) {
        const auto& e = cpu_emits[k];
        const auto c = compressor::make_case(e.geometry, d, compressor_positions(e.geometry), std::uint64_t(r.runs + 1));
        const auto passes = compressor_passes(pattern, c.positions());
        const auto rows = compressor::ring_rows_for(e.geometry, compressor_slack);
        const auto got = compressor::run_sequence(emits[k], c, passes, rows, store_under_test);
        const auto want = compressor::run_sequence(e, c, passes, rows);
        const std::string params = "d " + std::to_string(d) + ", " + std::to_string(passes.size()) + " passes";
        if (want.compressed.size() != std::size_t(c.positions() / compressor::ratio_of(e.geometry)))
          return {r.runs, at(e.name, params, "the CPU sequence emitted a wrong number of rows")};
        std::string diff = slot_difference("compressed row", got.compressed, want.compressed);
        if (diff.empty() && !same_bytes(got.kv, want.kv)) diff = "final kv ring differs";
        if (diff.empty() && !same_bytes(got.score, want.score)) diff = "final score ring differs";
        if (!diff.empty()) return {r.runs, at(e.name, params, diff)};
        ++r.runs;
      }
  return r;
}

// ---- The mutant every sweep must catch: the runner's result with one output bit flipped.

inline void flip_low_bit(float* v) {
  std::uint32_t b;
  std::memcpy(&b, v, 4);
  b ^= 1u;
  std::memcpy(v, &b, 4);
}

/// Element 0 of the first row a run writes.
inline float* first_output(const ops::compressor::store_entry&, const ops::compressor::store_problem& p) {
  return p.kv_ring + std::size_t(ops::compressor::slot_of(p.first_position, p.ring_rows)) * p.ring_stride;
}
inline float* first_output(const ops::compressor::emit_entry&, const ops::compressor::emit_problem& p) { return p.out; }

/// `inner`, then the lowest bit of its first output flipped: the smallest wrong result.
template <class Entry, class Problem>
std::function<void(const Entry&, const Problem&)> with_one_bit_flipped(std::function<void(const Entry&, const Problem&)> inner) {
  return [inner](const Entry& e, const Problem& p) {
    inner(e, p);
    flip_low_bit(first_output(e, p));
  };
}

/// The runners of the compressor under test (emits: the emit entry list the sequence runs).
struct family_runners {
  compressor::store_runner store;
  compressor::emit_runner emit;
  const std::vector<ops::compressor::emit_entry>& emits;
};

/// Every sweep fed `under_test` with one output bit flipped (the sequence: in every store pass);
/// "" when each stops at its very first run, else which sweeps did not.
inline std::string flips_not_caught(const family_runners& under_test) {
  std::string missed;
  const auto expect_caught = [&](const char* sweep, const sweep_result& r) {
    if (r.first_difference.empty()) missed += std::string(sweep) + ": not caught; ";
    else if (r.runs != 0) missed += std::string(sweep) + ": caught only after " + std::to_string(r.runs) + " runs; ";
  };
  namespace oc = ops::compressor;
  const auto store = with_one_bit_flipped<oc::store_entry, oc::store_problem>(under_test.store);
  expect_caught("compressor store", compressor_store_sweep(store));
  expect_caught("compressor emit", compressor_emit_sweep(with_one_bit_flipped<oc::emit_entry, oc::emit_problem>(under_test.emit)));
  expect_caught("compressor sequence", compressor_sequence_sweep(under_test.emits, store));
  return missed;
}

}  // namespace ordo::test::gpu_agreement
