/// The decode loop `ordo generate` and `ordo chat` share: from the logits after the last fed
/// token, choose a token (token_sampler), stream its text (stream_decoder, then stop strings),
/// feed it back, until a limit: -n tokens, a full context, end of sequence, a stop string or an
/// interruption. The last generated token is fed only when another one may follow, so n tokens
/// cost n - 1 forward steps.
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "eval/backend.hpp"
#include "generate/stop_strings.hpp"
#include "generate/token_sampler.hpp"
#include "tokenizer/bpe_tokenizer.hpp"

namespace ordo::generate {

inline constexpr int unlimited_tokens = -1;  // -n -1: until end of sequence or a full context

enum class stop_reason { token_limit, end_of_sequence, context_full, stop_string, interrupted };

struct decode_request {
  int max_tokens = 32;         // >= 0, or unlimited_tokens
  std::uint64_t context = 0;   // positions for everything in the sequence
  std::uint64_t position = 0;  // positions already used (the prompt, earlier turns); the first
                               // generated token takes this position (also the sampler's counter)
  /// Speculative decoding (backend::speculate; null: off). A token plain decoding would feed
  /// comes from the last round's committed rows when it is there (the same token and logits by
  /// construction, E3), else a round starts from it. Rows past where generation stops are
  /// rewound: the backend then holds what plain decoding fed.
  runtime::speculative_decoder* spec = nullptr;
};

struct decode_events {
  std::function<void(std::string_view)> text;  // shown text, as tokens complete it
  std::function<bool()> stop_requested;        // polled before every forward step
  /// After every forward step: the token fed and the logits that followed it (for --dump-logits).
  std::function<void(int32_t fed, const std::vector<float>& logits)> logits_row;
};

struct decode_result {
  std::vector<int32_t> tokens;  // generated, end of sequence excluded
  std::size_t steps = 0;        // forward steps (tokens fed back)
  double decode_seconds = 0;    // the forward steps only
  std::optional<std::chrono::steady_clock::time_point> first_token;  // when the first was chosen
  stop_reason stop = stop_reason::token_limit;
  std::string stop_string;      // stop == stop_string: which one
};

/// Runs the loop on `backend`, whose last step returned `logits`.
decode_result decode(eval::backend& backend, const tokenizer::bpe_tokenizer& tok, std::vector<float> logits,
                     const token_sampler& sampler, stop_matcher& stops, const decode_request& req,
                     const decode_events& ev);

}  // namespace ordo::generate
