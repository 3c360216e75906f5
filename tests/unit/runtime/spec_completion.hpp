// The speculation hash gates' completion (issue 13), shared by the CPU gates and the
// deferred-executor gates (speculative_test.cpp) and the GPU ones (tests/gpu/engine): a
// completion of a man-page prompt on the trained tiny model, on a session of any executor, with
// speculation on or off. It digests (SHA-256) every chosen token and the logits it was chosen
// from — the committed stream, which must be plain decoding's whatever the drafts — and, with
// speculation on, every round's position and drafts: the MTP block's own output, which the
// committed stream cannot see (a wrong draft is only rejected), so that an MTP path giving other
// bits than the CPU executor's shows up in the second digest.
#pragma once
#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "generate/token_sampler.hpp"
#include "ordo/runtime/speculative.hpp"
#include "sha256.hpp"

namespace ordo::runtime::test {

// The recorded digests of the completions below on the trained tiny model (models/tiny-ds4),
// each produced by the CPU engine at the commit that added it (cpu-release, x86-64): the
// committed streams by plain decoding (speculation off), which speculation on must reproduce;
// the drafts by the CPU engine's MTP block of main 513c762 (before it ran on the session's
// executor), which every executor's MTP block must reproduce. 800 tokens: the CPU and GPU hash
// gates; 100 tokens: the deferred-executor gates (short: CI's time).
inline constexpr const char* recorded_spec_t0 = "6a107907d5032b24d7858a6afcbf44507719f2cbee26eab0c9338bf26ee1f72c";
inline constexpr const char* recorded_spec_t08 = "fd8cb6108a9c176665c5fdd42745649671fb32ce5c1f9ca86d679d0d5660a80b";
inline constexpr const char* recorded_spec_t0_drafts = "fac1cbd6fbf16779d9ba1ba3e0036325c14cba5cf951a0fbe28b40043a583a8f";
inline constexpr const char* recorded_spec_t08_drafts = "2e001cb37b0f834cfad9c5d27ead3e9efea3b6604deeca3f0955cab7079ba56f";
inline constexpr const char* recorded_spec_t0_100 = "dbe5381f18429112542828f26abc5c9ed8cda0060bad727da28353cf74b652f4";
inline constexpr const char* recorded_spec_t08_100 = "4b12af55248c84ad5cf5559f47e719b0212b5aa2b80c94f1b37965a758002d20";
inline constexpr const char* recorded_spec_t0_100_drafts = "19120b5a38ca3a580989b0f20ad6bc8b11964e166ac18208b4c99c12e32f1ad1";
inline constexpr const char* recorded_spec_t08_100_drafts = "de9a3bd05550461181630250e60871bc3f6f02b905413e78865077cf63154bfa";

inline std::vector<int32_t> byte_tokens(const std::string& s) {
  std::vector<int32_t> t{256};  // BOS
  for (unsigned char c : s) t.push_back(c);
  return t;
}

struct spec_completion_options {
  float temperature = 0.0f;  // the sampler's seed is 1234
  bool speculate = false;
  int tokens = 800;
  executor_kind executor = executor_kind::cpu;
  memory_kind memory = memory_kind::host;
};

struct spec_completion {
  std::string digest;         // the committed stream: tokens and the logits each was chosen from
  std::string drafts_digest;  // speculation on: every round's (position, drafts)
  std::vector<int32_t> tokens;
  spec_stats stats;
  double generation_seconds = 0;  // the completion's tokens, after the prompt
};

/// The sampler's counter is the token's position. With speculation on, the rows a round commits
/// beyond its first are taken in order; each must be the token plain sampling chooses.
inline spec_completion run_spec_completion(const model_weights& w, const spec_completion_options& c) {
  ops::sampling::settings st{};
  st.temperature = c.temperature;
  st.seed = 1234;
  const generate::token_sampler sampler(st);
  session_options o;
  o.ctx = 1024;
  o.executor = c.executor;
  o.alloc.memory = c.memory;
  session s(w, o);
  std::unique_ptr<speculative_target> target;
  if (c.speculate) target = make_session_target(s);
  sha256 committed, drafted;
  spec_options so;
  so.override_drafts = [&drafted](int64_t P, std::vector<int32_t>& d) {  // observes; changes nothing
    const auto n = static_cast<int32_t>(d.size());
    drafted.add(&P, sizeof P);
    drafted.add(&n, sizeof n);
    drafted.add(d.data(), d.size() * sizeof(int32_t));
  };
  std::optional<speculative_decoder> dec;
  if (c.speculate) dec.emplace(*target, [&](std::span<const float> z, uint64_t p) { return sampler.choose(z, p); }, so);
  const auto prompt = byte_tokens("NAME\n       grep, egrep, fgrep - print lines that match patterns\n\nDESCRIPTION\n");
  std::vector<float> z = c.speculate ? dec->feed(prompt, 0) : s.prefill(prompt, 0);
  spec_completion out;
  std::vector<committed_row> queue;  // rows a round committed beyond its first
  std::size_t next_row = 0;
  const auto t0 = std::chrono::steady_clock::now();
  while (out.tokens.size() < std::size_t(c.tokens)) {
    const uint64_t pos = prompt.size() + out.tokens.size();
    const int32_t t = sampler.choose(z, pos);
    committed.add(&t, sizeof t);
    committed.add(z.data(), z.size() * sizeof(float));
    out.tokens.push_back(t);
    if (!c.speculate) {
      z = s.decode(t);
    } else if (next_row < queue.size()) {
      if (queue[next_row].token != t)
        throw std::logic_error("speculation committed token " + std::to_string(queue[next_row].token) + " where plain sampling chose " +
                               std::to_string(t) + " at position " + std::to_string(pos));
      z = std::move(queue[next_row++].logits);
    } else {
      queue = dec->round(t);
      next_row = 1;
      z = std::move(queue[0].logits);
    }
  }
  out.generation_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.digest = committed.hex();
  if (c.speculate) {
    out.drafts_digest = drafted.hex();
    out.stats = dec->stats();
  }
  return out;
}

}  // namespace ordo::runtime::test
