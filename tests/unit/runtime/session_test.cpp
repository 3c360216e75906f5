// E3 on the tiny synth model with ds4's type mix (Q8_0 dense and experts, F16 HC/compressor/
// indexer/router/APE: Q8 activations and act_f32 both run) (tests mirror include/ordo/runtime/session.hpp): prefill at chunk
// sizes {1, 2, 3, 5, 16, 64, whole} then decode gives logits and sequence-state bytes
// bit-identical to feeding the prompt one token at a time. The prompt (303 tokens) crosses two
// ratio-128 windows (127, 255), the raw ring (window 16 + slack 16 = 32 rows) wraps nine times,
// and the chunk sizes 3 and 5 put chunk boundaries at every position mod 4 around the ratio-4
// compressor's emissions; the decode tail covers positions 303..309 (≡ 3, 0, 1, 2 mod 4).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "ordo/runtime/session.hpp"
#include "synth_files.hpp"
#include "token_sequences.hpp"

namespace ordo::runtime {
namespace {

using test::argmax;
using test::prompt_tokens;

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

bool same_state(const session& a, const session& b) {
  return a.state().bytes() == b.state().bytes() &&
         std::memcmp(a.state().data(), b.state().data(), a.state().bytes()) == 0;
}

struct run {
  std::vector<std::vector<float>> logits;  // after the prompt, then after each decoded token
};

constexpr std::size_t prompt_len = 303;
constexpr int decode_len = 6;

const model_weights& tiny() {
  static const auto m = test::write_tiny(model::ds4_naming::ds4, "session_e3", gguf::ggml_type::q8_0, gguf::ggml_type::q8_0);
  static const model_weights w = model_weights::open(m.main, m.mtp);
  return w;
}

TEST(session, prefill_at_any_chunk_then_decode_is_bit_identical_to_token_at_a_time) {
  const model_weights& w = tiny();
  const auto prompt = prompt_tokens(prompt_len, w.hparams().n_vocab);
  session_options o;
  o.ctx = 512;
  // Reference: one token at a time, greedy continuation.
  session one(w, o);
  run want;
  std::vector<float> z;
  for (int32_t t : prompt) z = one.decode(t);
  want.logits.push_back(z);
  std::vector<int32_t> cont;
  for (int k = 0; k < decode_len; ++k) {
    cont.push_back(argmax(want.logits.back()));
    want.logits.push_back(one.decode(cont.back()));
  }
  for (uint32_t chunk : {2u, 3u, 5u, 16u, 64u, 0u}) {
    SCOPED_TRACE("chunk " + std::to_string(chunk));
    session s(w, o);
    const auto after = s.prefill(prompt, chunk);
    EXPECT_TRUE(same_bits(after, want.logits[0]));
    for (int k = 0; k < decode_len; ++k) {
      const auto zk = s.decode(cont[k]);
      EXPECT_TRUE(same_bits(zk, want.logits[k + 1])) << "decode " << k;
    }
    EXPECT_TRUE(same_state(s, one));
  }
  // Chunk 1 through prefill is the same path as decode; it must be the same bits too.
  session s1(w, o);
  EXPECT_TRUE(same_bits(s1.prefill(prompt, 1), want.logits[0]));
}

// A short prompt (40 tokens: ten ratio-4 windows, the raw ring wrapped once) at chunks 5 and 16:
// the quick E3 check the mutation target runs (runtime_session_mutant_rows_see_ahead).
TEST(session, short_prompt_in_chunks_is_bit_identical_to_token_at_a_time) {
  const model_weights& w = tiny();
  const auto prompt = prompt_tokens(40, w.hparams().n_vocab);
  session_options o;
  o.ctx = 512;
  session one(w, o);
  std::vector<float> want;
  for (int32_t t : prompt) want = one.decode(t);
  for (uint32_t chunk : {5u, 16u}) {
    SCOPED_TRACE("chunk " + std::to_string(chunk));
    session s(w, o);
    EXPECT_TRUE(same_bits(s.prefill(prompt, chunk), want));
    EXPECT_TRUE(same_state(s, one));
  }
}

// The GPU executor's ordering on the host (executor_kind::deferred: every entry runs at the next
// sync point of the step, not at once): a 40-token prompt at chunks 5 and 16, then decodes, give
// the CPU executor's logits and state bytes, so every host loop of layer_step and the session
// syncs before it reads an entry's output or rewrites a queued entry's input. The mutation target
// runtime_session_mutant_no_indexer_sync (the attention lists built without the sync after the
// indexer) fails it.
TEST(session, deferred_entries_give_the_cpu_bits) {
  const model_weights& w = tiny();
  const auto prompt = prompt_tokens(40, w.hparams().n_vocab);
  session_options o;
  o.ctx = 512;
  session one(w, o);
  const auto want = one.prefill(prompt, 5);
  std::vector<std::vector<float>> want_decode;
  for (int k = 0; k < 3; ++k) want_decode.push_back(one.decode(argmax(k ? want_decode.back() : want)));
  o.executor = executor_kind::deferred;
  for (uint32_t chunk : {5u, 16u}) {
    SCOPED_TRACE("chunk " + std::to_string(chunk));
    session s(w, o);
    EXPECT_TRUE(same_bits(s.prefill(prompt, chunk), want));
    for (int k = 0; k < 3; ++k)
      EXPECT_TRUE(same_bits(s.decode(argmax(k ? want_decode[k - 1] : want)), want_decode[k])) << "decode " << k;
    EXPECT_TRUE(same_state(s, one));
  }
}

// The GPU upload's rebasing (model_weights::rebased, device_weights.hpp) on the host: every
// tensor copied into one buffer and a session bound to the rebased views gives the bits of the
// mapped file's session (both namings' blocks and the MTP sidecar are rebased).
TEST(session, rebased_weights_give_the_same_bits) {
  const model_weights& w = tiny();
  std::vector<std::byte> copy(w.bytes() + 256 * w.all().size());
  std::size_t at = 0;
  const model_weights moved = w.rebased([&](const weight_view& v) {
    std::byte* p = copy.data() + at;
    std::memcpy(p, v.data, v.bytes());
    at += (v.bytes() + 255) / 256 * 256;
    return static_cast<const std::byte*>(p);
  });
  ASSERT_EQ(moved.all().size(), w.all().size());
  const auto prompt = prompt_tokens(24, w.hparams().n_vocab);
  session_options o;
  o.ctx = 512;
  session a(w, o), b(moved, o);
  EXPECT_TRUE(same_bits(a.prefill(prompt, 5), b.prefill(prompt, 5)));
  EXPECT_TRUE(same_state(a, b));
}

// skip_to (ordo bench): every frontier jumps, refusals name the numbers, and a step after it
// computes at the new position; a profiled step files every entry's time by kind.
TEST(session, skip_to_moves_every_frontier_and_refuses_what_it_cannot) {
  const model_weights& w = tiny();
  session_options o;
  o.ctx = 512;
  session s(w, o);
  EXPECT_THROW(s.skip_to(100), std::invalid_argument);  // not a multiple of the ratios (4, 128)
  EXPECT_THROW(s.skip_to(1024), std::invalid_argument);  // past the context
  s.skip_to(256);
  EXPECT_EQ(s.position(), 256);
  for (std::size_t il = 0; il < s.state().n_layer(); ++il) EXPECT_EQ(s.state().layer(il).frontier(), 256);
  EXPECT_THROW(s.skip_to(384), std::logic_error);  // only from an empty sequence
  launch_profile p;
  s.profile(&p);
  for (float z : s.decode(7)) ASSERT_TRUE(std::isfinite(z));
  s.profile(nullptr);
  EXPECT_EQ(s.position(), 257);
  std::set<std::string> kinds;
  for (const auto& l : p.lines()) {
    kinds.insert(l.kind.substr(0, l.kind.find('.')));
    EXPECT_GT(l.launches, 0u);
  }
  for (const char* family : {"qmv", "moe", "attention", "rmsnorm", "hc"}) EXPECT_TRUE(kinds.count(family)) << family;
  EXPECT_GT(p.total_ms(), 0.0);
  EXPECT_EQ(launch_profile::kind_of("qmv.q8_0.r16.ls32"), "qmv.q8_0.ls32");
  EXPECT_EQ(launch_profile::kind_of("moe.q2.r4.ls32.gate_up"), "moe.q2.ls32.gate_up");
  EXPECT_EQ(launch_profile::kind_of("compressor.store.r1.ratio4"), "compressor.store.ratio4");
  EXPECT_EQ(launch_profile::kind_of("quantize.q8_0"), "quantize.q8_0");
}

// The test can fail: a state that differs by one position's rows, or logits of another prompt,
// are told apart (the comparison is not vacuous).
TEST(session, e3_comparisons_see_a_different_prompt) {
  const model_weights& w = tiny();
  auto prompt = prompt_tokens(40, w.hparams().n_vocab);
  session_options o;
  o.ctx = 512;
  session a(w, o), b(w, o);
  const auto za = a.prefill(prompt, 5);
  prompt[37] = (prompt[37] + 1) % static_cast<int32_t>(w.hparams().n_vocab);
  const auto zb = b.prefill(prompt, 5);
  EXPECT_FALSE(same_bits(za, zb));
  EXPECT_FALSE(same_state(a, b));
}

}  // namespace
}  // namespace ordo::runtime
