/// The conversation behind `ordo chat`: a token transcript on the DS4 chat template and one
/// backend whose state holds a prefix of it, so a turn feeds only what is new.
///
/// The transcript is BOS [Think-Max prefix] [system], then per turn
///   <｜User｜>text<｜Assistant｜> (<think> | </think>) generated tokens <｜end▁of▁sentence｜>
/// exactly the tokens of render_single_turn for the first turn (the segments are encoded one by
/// one, and special tokens separate the text runs, so encoding in pieces changes nothing). Like
/// antirez/ds4's CLI, the assistant's reasoning stays in the transcript (the API template drops it
/// from earlier turns; dropping it here would throw away the state it built).
///
/// Before each turn the session compares the tokens the backend has consumed with the
/// transcript: when they are a prefix, only the rest is fed; otherwise (a mode switch that adds or
/// removes the Think-Max prefix, /clear, an interrupted turn rolled back) it opens a fresh backend
/// and feeds the whole transcript. "Fresh" is backend::restart() where the backend has it (the
/// weights stay loaded), else a new backend. A turn interrupted before its first token is rolled
/// back.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chat/think_mode.hpp"
#include "eval/backend.hpp"
#include "generate/decode_loop.hpp"
#include "generate/generate.hpp"
#include "ordo/ops/sampling/problem.hpp"
#include "tokenizer/bpe_tokenizer.hpp"

namespace ordo::generate {

struct chat_options {
  std::string system;                 // empty: none
  chat::think_mode think = chat::think_mode::none;
  std::uint64_t context = 32768;      // positions for the whole conversation
  int max_tokens = 256;               // per turn, >= 0 or unlimited_tokens
  ops::sampling::settings sampler{};  // a token's RNG counter is its transcript position
  std::vector<std::string> stop;
  speculation spec;                   // applied to every backend the session opens
};

struct turn_stats {
  std::size_t kept = 0;       // transcript positions the backend already held
  std::size_t fed = 0;        // tokens fed before generating (the new turn, or all after a reopen)
  std::size_t to_feed = 0;    // what had to be fed (fed < to_feed only when interrupted)
  bool reopened = false;      // this turn started a fresh state (restarted or newly opened backend)
  std::size_t generated = 0;
  std::size_t decode_steps = 0;
  double prefill_seconds = 0;
  double first_token_seconds = -1;  // from the start of the prefill; < 0: none
  double decode_seconds = 0;
  std::size_t transcript_tokens = 0;  // after the turn
  stop_reason stop = stop_reason::token_limit;
  std::string stop_string;
  std::optional<runtime::spec_stats> spec;  // the backend's speculation so far (when on)
};

struct turn_events {
  std::function<void(std::string_view)> text;
  std::function<void(std::size_t done, std::size_t total)> prefill_progress;
  std::function<bool()> stop_requested;
};

class chat_session {
 public:
  using backend_opener = std::function<std::unique_ptr<eval::backend>()>;

  /// `tok` must outlive the session. Throws std::invalid_argument for settings out of range.
  chat_session(const tokenizer::bpe_tokenizer& tok, backend_opener open, chat_options o);

  /// Opens the backend now, so that a model that does not load fails before the first turn.
  void open();

  /// Runs one user turn and returns its statistics. Throws std::runtime_error (the transcript
  /// unchanged) when the turn does not fit the context.
  turn_stats turn(std::string_view user_text, const turn_events& ev);

  /// Back to BOS [prefix] [system]; the next turn starts a fresh state.
  void clear();
  void set_think(chat::think_mode m);
  void set_context(std::uint64_t context);  // >= 1

  /// The mode turns run in now (max becomes high below think_max_min_context).
  chat::think_mode effective_think() const { return chat::effective_think_mode(opt_.think, opt_.context); }
  const chat_options& options() const { return opt_; }
  const std::vector<int32_t>& transcript() const { return transcript_; }
  /// The tokens the backend has consumed (a prefix of the transcript, or stale until the next turn).
  const std::vector<int32_t>& consumed() const { return consumed_; }

 private:
  /// Replaces the transcript's beginning (BOS [prefix] [system]) for the current mode.
  void rebuild_head();

  const tokenizer::bpe_tokenizer* tok_;
  backend_opener open_;
  chat_options opt_;
  token_sampler sampler_;
  /// Opens a backend with speculation started per opt_.spec.
  void open_backend();
  std::unique_ptr<eval::backend> backend_;
  runtime::speculative_decoder* spec_ = nullptr;
  std::vector<int32_t> transcript_;
  std::size_t head_ = 0;              // transcript_[0, head_): BOS [prefix] [system]
  std::vector<int32_t> consumed_;     // what backend_ has been fed
  bool state_dropped_ = false;        // /clear: backend_'s state is not to be reused
};

}  // namespace ordo::generate
