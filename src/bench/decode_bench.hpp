/// The engine's timings on a synthetic model (`ordo bench`, issue 11 "first full-size numbers"
/// and issue 13's verify-cost curve): decode tok/s at given contexts, prefill tok/s at a
/// context, the verify round's cost per width, and a per-entry-kind breakdown of one decode
/// step — each beside its byte floor (the bytes the step must read / the measured copy
/// bandwidth). A context is reached with session::skip_to (no long prefill; the skipped rows
/// are zero, so the timings are the context's and the values are not a model's).
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/synthetic_model.hpp"
#include "ordo/runtime/launch_profile.hpp"
#include "ordo/runtime/session.hpp"

namespace ordo::bench {

struct decode_bench_options {
  std::vector<uint32_t> contexts{1024, 8192, 32768};  // decode at these positions
  uint32_t decode_tokens = 8;                         // timed decode steps per context (after 1 warm-up)
  uint32_t prefill_at = 8192;                         // prefill the `prefill_tokens` positions ending here
  uint32_t prefill_tokens = 256;
  uint32_t chunk = 16;                                // prefill chunk (the largest tier by default)
  std::vector<int> verify_widths{1, 2, 3, 4, 5, 6};   // verify rounds of these widths …
  uint32_t verify_at = 1024;                          // … at this context
  uint32_t repeats = 3;                               // verify rounds per width
  bool breakdown = true;                              // profile one decode step per context
  bool fuse_launches = true;                          // runtime::session_options::fuse_launches (--unfused: false)
  uint64_t seed = 0;
};

struct bench_line {
  std::string what;      // "decode", "prefill", "verify"
  uint32_t context = 0;  // position of the (first) timed row
  uint32_t rows = 0;     // rows per step (1, the chunk, the verify width)
  double ms = 0;         // mean wall time of one step
  double tokens_per_s = 0;
  uint64_t bytes = 0;    // bytes one step must read (weights + state)
  double floor_ms = 0;   // bytes / copy bandwidth
};

struct bench_breakdown {
  uint32_t context = 0;
  double wall_ms = 0;    // the profiled step's wall time
  double entries_ms = 0; // the sum of its entries' times (the rest: host work, syncs, copies)
  std::vector<runtime::launch_profile::line> lines;
};

/// Speculation's arithmetic from the measured costs (issue 13): a round of width k verifies the
/// next token and k − 1 drafts, and drafting them costs k − 1 chained one-row MTP steps. With
/// each draft accepted independently with probability a, a round commits
/// E(a, k) = (1 − a^k) / (1 − a) tokens in verify(k) + (k − 1)·draft ms, against one token per
/// plain decode step. (The MTP catch-up of accepted rows, one batched step per round, is not
/// counted.)
struct speculation_costs {
  uint32_t context = 0;
  double decode_ms = 0;               // plain decode step at the context
  double draft_ms = 0;                // one MTP draft step (one row, with its head); 0: no MTP block
  std::vector<int> widths;
  std::vector<double> verify_ms;      // per width
  /// verify(k) + (k − 1) drafts, for width widths[i].
  double round_ms(std::size_t i) const;
  /// tokens/s of width widths[i] at acceptance a, over plain decoding's.
  double speedup(std::size_t i, double a) const;
  /// The acceptance above which width widths[i] beats plain decoding (1: never below 1).
  double break_even(std::size_t i) const;
};

struct bench_report {
  std::string device;      // what ran it
  bool fused = true;       // decode_bench_options::fuse_launches
  double copy_gbs = 0;     // bandwidth the floors use (0 on the CPU: no floor)
  std::vector<bench_line> lines;
  std::vector<bench_breakdown> breakdowns;
  speculation_costs speculation;
};

/// Runs every measurement on one session over `m`. Progress lines go to `log` (may be null).
bench_report run_decode_bench(const synthetic_model& m, const decode_bench_options& o, std::FILE* log);

/// Bytes a step of `rows` rows at `context` must read: the dense weights, the routed experts
/// `rows` tokens select (at most every expert), and the state rows attention and the indexer
/// read (raw window, compressed rows, indexer rows, per layer).
uint64_t step_bytes(const synthetic_model& m, const runtime::sequence_state_layout& state, uint32_t context, uint32_t rows);

/// The report as Markdown tables (docs/PERFORMANCE.md) on `out`: the steps, speculation's
/// arithmetic, the breakdowns.
void print_report(const bench_report& r, const synthetic_options& model, std::FILE* out);

}  // namespace ordo::bench
