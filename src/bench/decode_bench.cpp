// The engine's timings on a synthetic model (src/bench/decode_bench.hpp).
#include "bench/decode_bench.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

#include "ordo/runtime/mtp_block.hpp"

namespace ordo::bench {

namespace {

using clock_type = std::chrono::steady_clock;
double ms_since(clock_type::time_point t) { return std::chrono::duration<double, std::milli>(clock_type::now() - t).count(); }

std::vector<int32_t> random_tokens(uint32_t n, uint32_t n_vocab, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<int32_t> t(n);
  // Byte tokens and specials sit low in a synth vocabulary; any id in range is a valid input.
  for (auto& x : t) x = int32_t(g() % n_vocab);
  return t;
}

void say(std::FILE* log, const std::string& s) {
  if (!log) return;
  std::fprintf(log, "%s\n", s.c_str());
  std::fflush(log);
}

}  // namespace

double speculation_costs::round_ms(std::size_t i) const { return verify_ms.at(i) + (widths.at(i) - 1) * draft_ms; }

double speculation_costs::speedup(std::size_t i, double a) const {
  const int k = widths.at(i);
  const double tokens = a >= 1 ? double(k) : (1 - std::pow(a, k)) / (1 - a);
  return tokens / round_ms(i) * decode_ms;
}

double speculation_costs::break_even(std::size_t i) const {
  if (speedup(i, 1.0) < 1.0) return 1.0;
  double lo = 0, hi = 1;  // speedup rises with a
  for (int it = 0; it < 50; ++it) {
    const double mid = (lo + hi) / 2;
    (speedup(i, mid) < 1.0 ? lo : hi) = mid;
  }
  return hi;
}

uint64_t step_bytes(const synthetic_model& m, const runtime::sequence_state_layout& state, uint32_t context, uint32_t rows) {
  const model::ds4_hparams& h = m.hparams();
  const synthetic_bytes& b = m.bytes();
  // Routed experts: the expected number of distinct experts `rows` tokens select when each picks
  // n_expert_used of n_expert uniformly (decode: exactly n_expert_used).
  const double pick = double(h.n_expert_used) / h.n_expert;
  const double distinct = h.n_expert * (1.0 - std::pow(1.0 - pick, double(rows)));
  uint64_t bytes = b.dense_per_token + uint64_t(double(b.routed_per_token) / h.n_expert_used * distinct);
  for (const auto& l : state.layers) {
    bytes += uint64_t(std::min<uint64_t>(l.window, context + rows)) * l.raw.row_bytes;
    if (l.attn) {
      const uint64_t emitted = (context + rows) / l.attn->ratio;
      const uint64_t read = l.indexer ? std::min<uint64_t>(emitted, h.indexer_top_k) : emitted;
      bytes += read * l.attn->rows.row_bytes;
    }
    if (l.indexer) bytes += (context + rows) / l.indexer->ratio * l.indexer->rows.row_bytes;
  }
  return bytes;
}

bench_report run_decode_bench(const synthetic_model& m, const decode_bench_options& o, std::FILE* log) {
  const model::ds4_hparams& h = m.hparams();
  bench_report r;
  r.device = m.on_gpu() ? runtime::device::describe() : "cpu executor";
  if (m.on_gpu()) r.copy_gbs = runtime::device::copy_bandwidth_gbs();
  uint32_t ctx = o.prefill_tokens ? o.prefill_at : 0;  // no prefill timing: its context does not count
  for (uint32_t c : o.contexts) ctx = std::max(ctx, c + o.decode_tokens + 2);  // warm-up, timed, profiled steps
  if (!o.verify_widths.empty())
    ctx = std::max(ctx, o.verify_at + 1 + uint32_t(*std::max_element(o.verify_widths.begin(), o.verify_widths.end())) + 1);
  if (ctx > h.context_length)
    throw std::invalid_argument("ordo bench: context " + std::to_string(ctx) + " exceeds the model's " + std::to_string(h.context_length));
  runtime::session_options so;
  so.ctx = ctx;
  so.max_tier = std::max<uint32_t>(16, o.chunk);
  so.executor = m.on_gpu() ? runtime::executor_kind::gpu : runtime::executor_kind::cpu;
  so.fuse_launches = o.fuse_launches;
  r.fused = o.fuse_launches;
  const auto t0 = clock_type::now();
  runtime::session s = m.on_gpu() ? runtime::session(m.host(), m.device(), so) : runtime::session(m.host(), so);
  say(log, "session: context " + std::to_string(ctx) + ", state " + std::to_string(s.state().bytes() >> 20) + " MiB, ready in " +
               std::to_string(int(ms_since(t0))) + " ms");
  const auto& layout = s.state().layout();
  auto line = [&](std::string what, uint32_t context, uint32_t rows, double ms, double tokens) {
    bench_line l{std::move(what), context, rows, ms, tokens / (ms / 1e3), step_bytes(m, layout, context, rows), 0};
    if (r.copy_gbs > 0) l.floor_ms = double(l.bytes) / (r.copy_gbs * 1e9) * 1e3;
    say(log, l.what + " at " + std::to_string(context) + " (" + std::to_string(rows) + " rows): " + std::to_string(ms) + " ms, " +
                 std::to_string(l.tokens_per_s) + " tok/s");
    r.lines.push_back(std::move(l));
  };
  const std::vector<int32_t> tokens = random_tokens(std::max<uint32_t>(o.prefill_tokens, 64), h.n_vocab, o.seed);

  for (uint32_t c : o.contexts) {
    s.restart();
    s.skip_to(c);
    s.decode(tokens[0]);  // warm-up: plans, first-touch of the state pages
    double total = 0;
    for (uint32_t i = 0; i < o.decode_tokens; ++i) {
      const auto t = clock_type::now();
      s.decode(tokens[(i + 1) % tokens.size()]);
      total += ms_since(t);
    }
    line("decode", c + 1, 1, total / o.decode_tokens, 1);
    if (o.breakdown) {
      runtime::launch_profile p;
      s.profile(&p);
      const auto t = clock_type::now();
      s.decode(tokens[3]);
      const double wall = ms_since(t);
      s.profile(nullptr);
      p.collect();
      r.breakdowns.push_back({c + o.decode_tokens + 1, wall, p.total_ms(), p.lines()});
    }
  }

  if (o.prefill_tokens) {
    const uint32_t first = o.prefill_at - o.prefill_tokens;
    s.restart();
    s.skip_to(first);
    const std::span<const int32_t> span(tokens.data(), o.prefill_tokens);
    const auto t = clock_type::now();
    s.prefill(span, o.chunk);
    const double ms = ms_since(t);
    const uint32_t steps = (o.prefill_tokens + o.chunk - 1) / o.chunk;
    line("prefill", first, o.chunk, ms / steps, double(o.prefill_tokens) / steps);
  }

  speculation_costs& sc = r.speculation;
  sc.context = o.verify_at + 1;
  // Times f() `repeats` times from the same state (each run, MTP rows included, undone by restore).
  auto timed_from_here = [&](auto&& f) {
    const runtime::state_snapshot snap = s.state().snapshot();
    f();  // warm-up: this width's plan
    s.state().restore(snap);
    double total = 0;
    for (uint32_t i = 0; i < o.repeats; ++i) {
      const auto t = clock_type::now();
      f();
      total += ms_since(t);
      s.state().restore(snap);
    }
    return total / o.repeats;
  };
  if (!o.verify_widths.empty()) {
    s.restart();
    s.skip_to(o.verify_at);
    s.decode(tokens[0]);
    sc.decode_ms = timed_from_here([&] { s.decode(tokens[1]); });
    line("decode (verify's context)", sc.context, 1, sc.decode_ms, 1);
    for (int k : o.verify_widths) {
      const std::span<const int32_t> span(tokens.data() + 1, std::size_t(k));
      const double ms = timed_from_here([&] { s.verify(span); });
      sc.widths.push_back(k);
      sc.verify_ms.push_back(ms);
      line("verify", sc.context, uint32_t(k), ms, k);
    }
    if (m.host().mtp()) {
      // One draft step: one MTP row (the token and a target hidden state) and its head.
      runtime::mtp_block mtp(s);
      runtime::mtp_outputs out;
      const std::vector<float> hidden(h.hc_dim(), 0.01f);
      const int32_t token = tokens[2];
      sc.draft_ms = timed_from_here(
          [&] { mtp.step(*s.state().mtp(), std::span<const int32_t>(&token, 1), hidden.data(), h.hc_dim(), true, out); });
      say(log, "MTP draft step: " + std::to_string(sc.draft_ms) + " ms");
    }
  }
  return r;
}

void print_report(const bench_report& r, const synthetic_options& model, std::FILE* out) {
  const std::string layers = model.n_layer ? ", " + std::to_string(model.n_layer) + " layers" : "";
  std::fprintf(out, "\nordo bench --synthetic: layout %s%s, %s; copy bandwidth %.0f GB/s%s\n\n", model.layout.c_str(), layers.c_str(),
               r.device.c_str(), r.copy_gbs, r.fused ? "" : "; launches unfused (--unfused)");
  std::fprintf(out, "| step | context | rows | ms / step | tok/s | bytes / step | floor ms | floor / measured |\n");
  std::fprintf(out, "|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const bench_line& l : r.lines) {
    char floor[64] = "n/a | n/a";  // no copy bandwidth measured (the cpu executor)
    if (r.copy_gbs > 0) std::snprintf(floor, sizeof floor, "%.2f | %.0f%%", l.floor_ms, l.ms > 0 ? 100.0 * l.floor_ms / l.ms : 0.0);
    std::fprintf(out, "| %s | %u | %u | %.2f | %.1f | %.2f GB | %s |\n", l.what.c_str(), l.context, l.rows, l.ms, l.tokens_per_s,
                 double(l.bytes) / 1e9, floor);
  }
  const speculation_costs& sc = r.speculation;
  if (!sc.widths.empty()) {
    std::fprintf(out, "\nSpeculation at %u from these costs: plain decode %.2f ms, MTP draft step %s; a round of width k = verify(k) + (k-1) drafts\n\n",
                 sc.context, sc.decode_ms, sc.draft_ms > 0 ? (std::to_string(sc.draft_ms) + " ms").c_str() : "not measured (no MTP block: --mtp)");
    std::fprintf(out, "| k | verify ms | round ms | verify / decode | break-even acceptance | speedup a=0.6 | a=0.8 | a=0.9 |\n");
    std::fprintf(out, "|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (std::size_t i = 0; i < sc.widths.size(); ++i)
      std::fprintf(out, "| %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", sc.widths[i], sc.verify_ms[i],
                   sc.round_ms(i), sc.verify_ms[i] / sc.decode_ms, sc.break_even(i),
                   sc.speedup(i, 0.6), sc.speedup(i, 0.8), sc.speedup(i, 0.9));
  }
  for (const bench_breakdown& b : r.breakdowns) {
    std::fprintf(out, "\nOne profiled decode step at %u: wall %.2f ms, entries %.2f ms (%.0f%%; the rest is host work, syncs and copies)\n\n",
                 b.context, b.wall_ms, b.entries_ms, b.wall_ms > 0 ? 100.0 * b.entries_ms / b.wall_ms : 0.0);
    std::fprintf(out, "| entry kind | ms | launches | share of entries |\n|---|---:|---:|---:|\n");
    for (const auto& l : b.lines)
      std::fprintf(out, "| %s | %.3f | %llu | %.1f%% |\n", l.kind.c_str(), l.ms, static_cast<unsigned long long>(l.launches),
                   b.entries_ms > 0 ? 100.0 * l.ms / b.entries_ms : 0.0);
  }
  std::fflush(out);
}

}  // namespace ordo::bench
