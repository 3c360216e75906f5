// The speculative driver (include/ordo/runtime/speculative.hpp) on the trained tiny model
// (models/tiny-ds4: its MTP drafts are accepted often, so rounds commit several rows):
//  - an rc::state machine: any interleaving of prefill chunks, plain decode steps and
//    speculative rounds (random widths; drafts kept, forced right or forced wrong per depth)
//    commits exactly the plain-greedy tokens, each committed row with the logits of plain
//    one-token-at-a-time decoding, bit for bit, and after every command the live state
//    (live_state.hpp) of the main layers and of the MTP ring equals plain decoding's at that
//    position (the MTP ring fed one row per position, D2); a stop inside a round's rows
//    (rewind_to) leaves plain decoding's state at the stop;
//  - hash gates: SHA-256 of an 800-token completion (token ids and every logit row) with
//    speculation on equals the one with it off, at T = 0 and at T = 0.8 with a fixed seed: each
//    run is its own test and must give the digest recorded below (plain decoding's), so on ==
//    recorded == off; with speculation on, the digest of every round's drafts must be the one
//    recorded from the CPU engine (the MTP block's bits, which the committed stream cannot see);
//  - the same gates at 100 tokens on a session whose executor is `deferred` (executor.hpp: the
//    entries run only at sync points, so a host loop of the target or of the MTP block without
//    its sync reads stale bytes every time): the GPU path's syncs, checked on any machine;
//  - the mutation targets runtime_spec_mutant_commit_rejected_row (ORDO_MUTANT_COMMIT_REJECTED_ROW:
//    the first rejected draft is committed too) must fail the state machine, and
//    runtime_spec_mutant_no_mtp_output_sync (ORDO_MUTANT_NO_MTP_OUTPUT_SYNC: the MTP block reads
//    its output rows without the sync after its layer step) must fail the deferred gate.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <rapidcheck/state.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "live_state.hpp"
#include "ordo/runtime/speculative.hpp"
#include "spec_completion.hpp"

namespace ordo::runtime {
namespace {

namespace fs = std::filesystem;
const fs::path model_dir = fs::path(ORDO_SOURCE_DIR) / "models" / "tiny-ds4";

const model_weights& tiny() {
  static const model_weights w = model_weights::open(model_dir / "tiny-ds4.gguf", model_dir / "tiny-ds4-mtp.gguf");
  return w;
}

int32_t argmax(std::span<const float> z) {
  int32_t best = 0;
  for (std::size_t i = 1; i < z.size(); ++i)
    if (z[i] > z[std::size_t(best)]) best = int32_t(i);
  return best;
}

bool same_bits(std::span<const float> a, std::span<const float> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// ---- the state machine ----------------------------------------------------------------------

constexpr int64_t seq_len = 56;  // positions the reference covers (the indexer selects from 36 on)
constexpr int max_rows = 6;      // a round verifies at most 6 rows

/// Plain decoding, one token at a time: a short prompt, then greedy. Per position q: the token
/// S[q], the logits after it, the main layers' live bytes after it (frontier q + 1), the MTP
/// ring's live bytes once it holds r rows (positions 1 … r, row q from (S[q], h_{q−1})), and the
/// MTP's own greedy chain of 5 drafts from position q (run on the ring, then restored), which
/// tells the model which kept drafts plain decoding accepts.
struct plain_run {
  std::vector<int32_t> tokens;
  std::vector<std::vector<float>> logits;
  std::vector<uint64_t> main_after;  // [q + 1]: after q + 1 tokens; [0]: empty
  std::vector<uint64_t> mtp_rows;    // [r]: the ring holding r rows
  std::vector<std::array<int32_t, 5>> chain;  // [q]: drafts for q + 1 … q + 5
  int64_t prompt = 0;
};

const plain_run& reference() {
  static const plain_run r = [] {
    plain_run p;
    const model_weights& w = tiny();
    session_options o;
    o.ctx = 256;
    session s(w, o);
    mtp_block mtp(s);
    p.tokens = test::byte_tokens("NAME\n  ls - list");
    p.prompt = int64_t(p.tokens.size());
    p.main_after.push_back(test::fnv1a(test::live_main(s.state())));
    p.mtp_rows.push_back(test::fnv1a(test::live_mtp(s.state())));
    p.chain.resize(seq_len);
    std::vector<float> h_prev;
    for (int64_t q = 0; q < seq_len; ++q) {
      if (q >= p.prompt) p.tokens.push_back(argmax(p.logits.back()));
      const std::span<const int32_t> tok(&p.tokens[std::size_t(q)], 1);
      if (q >= 1) {
        const state_snapshot before = s.state().snapshot();
        mtp_outputs d;
        mtp.step(*s.state().mtp(), tok, h_prev.data(), 0, true, d);
        for (int j = 0; j < 5; ++j) {
          p.chain[std::size_t(q)][std::size_t(j)] = argmax(d.logits);
          const int32_t dj = p.chain[std::size_t(q)][std::size_t(j)];
          mtp_outputs next;
          if (j < 4) mtp.step(*s.state().mtp(), std::span<const int32_t>(&dj, 1), d.hidden.data(), 0, true, next);
          d = std::move(next);
        }
        s.state().restore(before);
      }
      row_outputs rows;
      p.logits.push_back(s.prefill(tok, 1, &rows));
      p.main_after.push_back(test::fnv1a(test::live_main(s.state())));
      if (q >= 1) {
        mtp_outputs out;
        mtp.step(*s.state().mtp(), tok, h_prev.data(), 0, false, out);
        p.mtp_rows.push_back(test::fnv1a(test::live_mtp(s.state())));
      }
      h_prev = rows.hidden;
    }
    return p;
  }();
  return r;
}

struct model_t {
  int64_t pos = 0;
  int64_t round_start = -1;  // the last command's round's P (−1: the last command fed)
};

struct sut_t {
  session s;
  std::unique_ptr<speculative_target> target;
  speculative_decoder dec;
  // The pattern of the next round: per depth 0 keep the MTP draft, 1 force the right token,
  // 2 force a wrong one; and the round's width.
  std::vector<int> pattern;
  explicit sut_t(session_options o)
      : s(tiny(), o),
        target(make_session_target(s)),
        dec(*target, [](std::span<const float> z, uint64_t) { return argmax(z); },
            spec_options{5, 5, 3, 0.0f, [this](int64_t P, std::vector<int32_t>& d) { apply_pattern(P, d); }}) {}
  void apply_pattern(int64_t P, std::vector<int32_t>& d) {
    const auto& ref = reference().tokens;
    if (d.size() > pattern.size()) d.resize(pattern.size());
    for (std::size_t j = 0; j < d.size(); ++j) {
      const int32_t right = ref[std::size_t(P) + 1 + j];
      if (pattern[j] == 1) d[j] = right;
      if (pattern[j] == 2) d[j] = (right + 1 + int32_t(j)) % int32_t(tiny().hparams().n_vocab);
    }
  }
};

using command = rc::state::Command<model_t, sut_t>;

void check_state(const model_t& m, sut_t& s) {
  const plain_run& ref = reference();
  RC_ASSERT(s.s.position() == m.pos);
  RC_ASSERT(test::fnv1a(test::live_main(s.s.state())) == ref.main_after[std::size_t(m.pos)]);
  const int64_t rows = s.target->mtp_rows();
  // After plain feeding the ring holds positions 1 … pos − 1; after a round also pos (armed).
  RC_ASSERT(rows == m.pos - 1 || rows == m.pos);
  RC_ASSERT(test::fnv1a(test::live_mtp(s.s.state())) == ref.mtp_rows[std::size_t(rows)]);
}

struct prefill_chunk : command {
  int64_t n;
  uint32_t chunk;
  explicit prefill_chunk(const model_t& m)
      : n(*rc::gen::inRange<int64_t>(1, 20)), chunk(*rc::gen::element<uint32_t>(1, 2, 3, 5, 16, 0)) {
    (void)m;
  }
  void checkPreconditions(const model_t& m) const override { RC_PRE(m.pos + n + max_rows <= seq_len); }
  void apply(model_t& m) const override { m.pos += n, m.round_start = -1; }
  void run(const model_t& m, sut_t& s) const override {
    const plain_run& ref = reference();
    const auto z = s.dec.feed(std::span<const int32_t>(ref.tokens.data() + m.pos, std::size_t(n)), chunk);
    RC_ASSERT(same_bits(z, ref.logits[std::size_t(m.pos + n - 1)]));
    model_t next = m;
    apply(next);
    check_state(next, s);
  }
  void show(std::ostream& os) const override { os << "prefill " << n << " chunk " << chunk; }
};

struct decode_step : command {
  void checkPreconditions(const model_t& m) const override { RC_PRE(m.pos + 1 + max_rows <= seq_len); }
  void apply(model_t& m) const override { m.pos += 1, m.round_start = -1; }
  void run(const model_t& m, sut_t& s) const override {
    const plain_run& ref = reference();
    const auto z = s.dec.feed(std::span<const int32_t>(ref.tokens.data() + m.pos, 1), 1);
    RC_ASSERT(same_bits(z, ref.logits[std::size_t(m.pos)]));
    model_t next = m;
    apply(next);
    check_state(next, s);
  }
  void show(std::ostream& os) const override { os << "decode"; }
};

struct spec_round : command {
  std::vector<int> pattern;
  explicit spec_round(const model_t&)
      : pattern(*rc::gen::container<std::vector<int>>(std::size_t(*rc::gen::inRange(0, 6)), rc::gen::inRange(0, 3))) {}
  // A round needs a fed token (h_{P−1}) and a position where plain decoding is greedy.
  void checkPreconditions(const model_t& m) const override {
    RC_PRE(m.pos >= reference().prompt && m.pos + max_rows <= seq_len);
  }
  /// Rows plain decoding commits: the round's token, then drafts while each equals the plain
  /// token (forced right: always; forced wrong: never; kept: when the MTP chain's draft is it).
  std::size_t expected_rows(int64_t P) const {
    const plain_run& ref = reference();
    std::size_t a = 0;
    while (a < pattern.size()) {
      const bool right = pattern[a] == 1 ||
                         (pattern[a] == 0 && ref.chain[std::size_t(P)][a] == ref.tokens[std::size_t(P) + 1 + a]);
      if (!right) break;
      ++a;
    }
    return a + 1;
  }
  void apply(model_t& m) const override {
    m.round_start = m.pos;
    m.pos += int64_t(expected_rows(m.pos));
  }
  void run(const model_t& m, sut_t& s) const override {
    const plain_run& ref = reference();
    s.pattern = pattern;
    const auto rows = s.dec.round(ref.tokens[std::size_t(m.pos)]);
    RC_ASSERT(rows.size() == expected_rows(m.pos));
    for (std::size_t i = 0; i < rows.size(); ++i) {
      RC_ASSERT(rows[i].token == ref.tokens[std::size_t(m.pos) + i]);
      RC_ASSERT(same_bits(rows[i].logits, ref.logits[std::size_t(m.pos) + i]));
    }
    model_t next = m;
    apply(next);
    check_state(next, s);
  }
  void show(std::ostream& os) const override {
    os << "round pattern";
    for (int p : pattern) os << ' ' << "KRW"[p];
  }
};

// Generation stopped inside a round's rows (a token limit, a stop string): rewind_to leaves
// plain decoding's state at that position.
struct stop_inside_round : command {
  int64_t to;
  explicit stop_inside_round(const model_t& m) {
    RC_PRE(m.round_start >= 0 && m.pos - m.round_start >= 2);
    to = *rc::gen::inRange<int64_t>(m.round_start + 1, m.pos);
  }
  void checkPreconditions(const model_t& m) const override { RC_PRE(m.round_start >= 0 && to > m.round_start && to < m.pos); }
  void apply(model_t& m) const override { m.pos = to, m.round_start = -1; }
  void run(const model_t& m, sut_t& s) const override {
    s.dec.rewind_to(to);
    model_t next = m;
    apply(next);
    check_state(next, s);
  }
  void show(std::ostream& os) const override { os << "stop inside the round at " << to; }
};

RC_GTEST_PROP(speculative, any_interleaving_commits_the_plain_greedy_rows_and_state, ()) {
  session_options o;
  o.ctx = 128;     // the reference's 56 positions and a round past them
  o.max_tier = 8;  // verify spans need 6; smaller buffers keep a case cheap
  model_t m;
  sut_t s(o);
  rc::state::check(m, s, rc::state::gen::execOneOfWithArgs<prefill_chunk, prefill_chunk, decode_step, spec_round, spec_round,
                                                            spec_round, stop_inside_round>());
}

// ---- hash gates --------------------------------------------------------------------------------

using test::recorded_spec_t0, test::recorded_spec_t08, test::recorded_spec_t0_drafts, test::recorded_spec_t08_drafts;
using test::recorded_spec_t0_100, test::recorded_spec_t08_100, test::recorded_spec_t0_100_drafts,
    test::recorded_spec_t08_100_drafts;

struct gate_case {
  float temperature;
  bool speculate;
  int tokens;
  executor_kind executor;
  const char* recorded;
  const char* recorded_drafts;  // speculation on
};

// One completion per test (CI runs them in parallel; each 800-token completion is a few tens of
// seconds on one core): off must give the recorded digest, on must give it too.
void gate(const gate_case& g) {
  test::spec_completion_options c;
  c.temperature = g.temperature;
  c.speculate = g.speculate;
  c.tokens = g.tokens;
  c.executor = g.executor;
  const test::spec_completion r = test::run_spec_completion(tiny(), c);
  std::printf("T = %.1f, %d tokens, speculation %s: digest %s\n", double(g.temperature), g.tokens, g.speculate ? "on" : "off",
              r.digest.c_str());
  EXPECT_EQ(r.digest, g.recorded);
  if (g.speculate) {
    std::printf("drafts digest %s\n%s", r.drafts_digest.c_str(), format_spec_stats(r.stats).c_str());
    EXPECT_EQ(r.drafts_digest, g.recorded_drafts);
    // Not vacuous: the rounds committed several rows on average (else "on" was "off").
    EXPECT_GT(double(r.stats.committed) / double(r.stats.rounds), 1.5);
  }
}

constexpr auto cpu = executor_kind::cpu;
constexpr auto deferred = executor_kind::deferred;

TEST(speculative_hash_gate, greedy_800_tokens_off) { gate({0.0f, false, 800, cpu, recorded_spec_t0, nullptr}); }
TEST(speculative_hash_gate, greedy_800_tokens_on) { gate({0.0f, true, 800, cpu, recorded_spec_t0, recorded_spec_t0_drafts}); }
TEST(speculative_hash_gate, sampled_t08_800_tokens_off) { gate({0.8f, false, 800, cpu, recorded_spec_t08, nullptr}); }
TEST(speculative_hash_gate, sampled_t08_800_tokens_on) {
  gate({0.8f, true, 800, cpu, recorded_spec_t08, recorded_spec_t08_drafts});
}

// The target and the MTP block on the deferred executor: every host loop between entries synced.
TEST(speculative_deferred_gate, greedy_100_tokens_on) {
  gate({0.0f, true, 100, deferred, recorded_spec_t0_100, recorded_spec_t0_100_drafts});
}
TEST(speculative_deferred_gate, sampled_t08_100_tokens_on) {
  gate({0.8f, true, 100, deferred, recorded_spec_t08_100, recorded_spec_t08_100_drafts});
}

}  // namespace
}  // namespace ordo::runtime
