/// Shared pieces of the reference parity tests (llama.cpp and HF transformers): running the tools,
/// deterministic prompts, comparing two ORDL logit dumps, and replaying a token sequence through the
/// double-precision reference in the calling translation unit.
///
/// The replay is header-only on purpose: the mutation checks compile these tests with an
/// ORDO_MUTANT_* switch, and the mutated reference must be the one that runs. A mutant test target
/// therefore never calls eval::make_backend (whose reference is compiled into ordo_eval unmutated).
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "eval/eval.hpp"
#include "eval/ordl.hpp"
#include "eval/ref_loader.hpp"
#include "ordo/ref/forward.hpp"

namespace ordo::parity {

namespace fs = std::filesystem;
using eval::ordl;

inline void run_command(const std::string& cmd) {
  std::printf("$ %s\n", cmd.c_str());
  std::fflush(stdout);
  ASSERT_EQ(std::system(cmd.c_str()), 0) << "command failed: " << cmd;
}

inline std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

/// Deterministic prompt ids (an LCG independent of both implementations).
inline std::vector<int32_t> prompt_ids(int n, unsigned seed, int vocab) {
  std::vector<int32_t> ids;
  uint64_t x = 0x9E3779B97F4A7C15ull * (seed + 1);
  for (int i = 0; i < n; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    ids.push_back(static_cast<int32_t>((x >> 33) % static_cast<uint64_t>(vocab)));
  }
  return ids;
}

inline fs::path write_ids(const fs::path& dir, const std::vector<int32_t>& ids) {
  const fs::path p = dir / "prompt.txt";
  std::ofstream o(p);
  for (std::size_t i = 0; i < ids.size(); ++i) o << (i ? "," : "") << ids[i];
  return p;
}

/// Tiny models are ~50 MB each: drop them once a test has passed (its ORDL dumps stay for
/// inspection); a failing test keeps everything.
inline void drop_models_if_passed(const fs::path& dir) {
  if (::testing::Test::HasFailure()) return;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".gguf") fs::remove(e.path());
}

struct diff {
  double max_abs = 0;
  int worst_pos = -1;
  int argmax_agree = 0;
  double mean_abs = 0;        // over every logit of every position
  double median_row_max = 0;  // median over positions of the per-position max
};

inline diff compare(const ordl& a, const ordl& b, std::size_t n_pos) {
  diff d;
  std::vector<double> row_max;
  double sum = 0;
  for (std::size_t p = 0; p < n_pos; ++p) {
    const auto ra = a.row(p), rb = b.row(p);
    double m = 0;
    for (std::size_t i = 0; i < ra.size(); ++i) {
      const double e = std::fabs(double(ra[i]) - double(rb[i]));
      m = std::max(m, e);
      sum += e;
    }
    row_max.push_back(m);
    if (m > d.max_abs) d.max_abs = m, d.worst_pos = static_cast<int>(p);
    d.argmax_agree += eval::argmax(ra) == eval::argmax(rb);
  }
  d.mean_abs = sum / static_cast<double>(n_pos * a.n_vocab);
  std::sort(row_max.begin(), row_max.end());
  d.median_row_max = row_max[row_max.size() / 2];
  return d;
}

/// What a replay went through, for the fixtures' own claims:
///  * the SwiGLU clamp, per expert evaluation (routed or shared) of one token, "a row": whether
///    any of its expert_ff gate (g > limit) or up (|u| > limit) values is cut;
///  * the indexer's top-k on ratio-4 layers: the gap between the k-th and (k+1)-th largest score.
///    A zero gap is a tie whose winner depends on the tie rule, which llama.cpp and torch.topk do
///    not share with the reference (lowest index first): a parity fixture must have none.
struct replay_stats {
  long rows = 0, rows_clamped = 0;
  long values = 0, gate_above = 0, gate_below_minus = 0, up_outside = 0;
  long topk_selections = 0, topk_boundary_ties = 0;
  double min_topk_gap = std::numeric_limits<double>::infinity();
  double row_fraction() const { return rows ? double(rows_clamped) / double(rows) : 0.0; }
  double value_fraction(long n) const { return values ? double(n) / double(values) : 0.0; }
  /// The stressed fixtures' claim: the clamp cuts gate and up values on a visible share of rows,
  /// and gate values below -limit (which only the up clamp may touch) occur too.
  void expect_clamp_exercised() const {
    EXPECT_GE(row_fraction(), 0.5) << "the fixture no longer exercises the SwiGLU clamp";
    EXPECT_GE(value_fraction(gate_above), 0.01) << "too few gate values above the limit";
    EXPECT_GE(value_fraction(up_outside), 0.01) << "too few up values outside the limit";
    EXPECT_GE(value_fraction(gate_below_minus), 0.01) << "too few gate values below -limit";
  }
  void print(const char* name) const {
    std::printf("[%s] SwiGLU clamp binds on %ld of %ld expert rows (%.1f%%); values: gate > limit %.2f%%, "
                "gate < -limit %.2f%%, |up| > limit %.2f%%\n",
                name, rows_clamped, rows, 100.0 * row_fraction(), 100.0 * value_fraction(gate_above),
                100.0 * value_fraction(gate_below_minus), 100.0 * value_fraction(up_outside));
    std::printf("[%s] indexer top-k: %ld selections, %ld with a tie at the boundary, smallest boundary gap %.3g\n",
                name, topk_selections, topk_boundary_ties, min_topk_gap);
  }
};

inline void count_clamp(const ref::expert_weights& e, const ref::vec& x, double limit, replay_stats& s) {
  const ref::vec g = e.gate * x, u = e.up * x;
  bool any = false;
  for (Eigen::Index i = 0; i < g.size(); ++i) {
    const bool ga = g[i] > limit, gb = g[i] < -limit, uo = std::fabs(u[i]) > limit;
    s.gate_above += ga, s.gate_below_minus += gb, s.up_outside += uo;
    any = any || ga || uo;
  }
  s.values += g.size();
  s.rows += 1;
  s.rows_clamped += any;
}

/// The boundary of the selection attention_forward just made (same scores, same condition).
inline void count_topk(const ref::layer_weights& w, const ref::config& c, const ref::layer_state& st,
                       const ref::vec& x_attn, int pos, const ref::simulations& sims, replay_stats& s) {
  if (static_cast<int>(st.comp.size()) <= c.indexer_top_k) return;
  const ref::vec qr_n = ref::rms_norm(w.q_a * x_attn, w.q_a_norm, c.rms_eps);
  std::vector<double> score = ref::indexer_scores(w, c, qr_n, x_attn, st.index_keys, pos, sims);
  std::sort(score.begin(), score.end(), std::greater<>());
  const double gap = score[c.indexer_top_k - 1] - score[c.indexer_top_k];
  s.topk_selections += 1;
  s.topk_boundary_ties += gap == 0.0;
  s.min_topk_gap = std::min(s.min_topk_gap, gap);
}

/// Runs `tokens` through the reference (teacher-forced) with the given simulations and returns
/// every position's logits. With `stats`, also fills replay_stats: that needs each sublayer's
/// input, so the layers are stepped here with the same calls as ref::layer_forward, and the
/// result is checked bit for bit against ref::forward_token on a twin state.
inline ordl replay_reference(const eval::ref_model& m, const std::vector<int32_t>& tokens,
                             const ref::simulations& sims, replay_stats* stats = nullptr) {
  const ref::config& c = m.config;
  auto st = ref::make_sequence_state(c);
  ordl out;
  out.n_vocab = static_cast<uint32_t>(c.n_vocab);
  if (!stats) {
    for (int32_t t : tokens) {
      const auto r = ref::forward_token(m.weights, c, st, t, sims);
      out.tokens.push_back(t);
      out.logits.insert(out.logits.end(), r.logits.begin(), r.logits.end());
    }
    return out;
  }
  auto twin = ref::make_sequence_state(c);
  for (int32_t t : tokens) {
    const int pos = st.n_pos;
    ref::hc_state h = ref::hc_from_embedding(m.weights.token_embd.row(t).transpose(), int(c.hc_count));
    for (int il = 0; il < c.n_layer; ++il) {
      const ref::layer_weights& w = m.weights.layers[il];
      const ref::hc_split a = ref::hc_pre(h, w.hc_attn, c);
      const ref::vec x_attn = ref::rms_norm(a.x_sub, w.attn_norm, c.rms_eps);
      const ref::vec attn = ref::attention_forward(w, c, c.ratio(il), st.layers[il], x_attn, pos, sims);
      if (c.ratio(il) == 4) count_topk(w, c, st.layers[il], x_attn, pos, sims, *stats);
      const ref::hc_state h1 = ref::hc_post(attn, h, a);
      const ref::hc_split f = ref::hc_pre(h1, w.hc_ffn, c);
      const ref::vec x = ref::rms_norm(f.x_sub, w.ffn_norm, c.rms_eps);
      const double limit = c.clamp_limit(il);
      for (int e : ref::route(w, c, il, x, t).experts) count_clamp(w.experts.at(e), x, limit, *stats);
      count_clamp(w.shared, x, limit, *stats);
      h = ref::hc_post(ref::moe_forward(w, c, il, x, t), h1, f);
    }
    ++st.n_pos;
    const ref::vec logits = ref::lm_head(m.weights, c, h, m.weights.hc_head, m.weights.output_norm);
    const auto r = ref::forward_token(m.weights, c, twin, t, sims);
    EXPECT_EQ(logits, r.logits) << "the stepped replay left ref::forward_token at position " << pos;
    out.tokens.push_back(t);
    out.logits.insert(out.logits.end(), logits.begin(), logits.end());
  }
  return out;
}

}  // namespace ordo::parity
