/// Text generation: render a DS4 chat prompt, tokenize it, feed it to an eval backend token by
/// token, then greedy-decode, streaming the text as it completes, inside a context of
/// `options::context` positions (prompt + generated tokens). The default model is a tiny
/// random-weight DS4-architecture GGUF that `ordo synth` writes on first use (deterministic, so
/// "embedded": its recipe is in the binary); its text is gibberish by construction.
///
/// The caller (the CLI) sees only options, events and stats; which engine computes the logits is
/// behind eval::make_backend (chosen by eval::choose_backend), so swapping the engine does not
/// touch reporting. The decode loop itself is decode_loop.hpp's, shared with `ordo chat`.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "chat/think_mode.hpp"
#include "generate/decode_loop.hpp"
#include "ordo/ops/sampling/problem.hpp"

namespace ordo::generate {

struct options {
  std::filesystem::path model;        // empty: the embedded default model
  std::string backend = "auto";       // --backend: auto, cpu, gpu, ref (eval::choose_backend)
  std::string system;                 // empty: no system text
  std::string prompt;
  chat::think_mode think = chat::think_mode::none;
  int max_tokens = 32;                // >= 0, or unlimited_tokens
  std::uint64_t context = 32768;      // positions for prompt + generated tokens, >= 1; think max
                                      // needs >= 393216 (else it runs as high)
  ops::sampling::settings sampler{};  // temperature 0 (the default): greedy; the token at position
                                      // p is drawn with counter p (p = prompt tokens + tokens before it)
  std::vector<std::string> stop;      // stop strings: the text ends before the first one found
  std::filesystem::path dump_logits;  // ORDL of every forward step (eval/ordl.hpp); empty: none
  std::filesystem::path dump_tokens;  // the sequence's tokens, ds4's format (token_dump.hpp)
};

/// Timings are wall-clock seconds. Rates are left to report.hpp so that they are computed from
/// what was measured and nothing else.
struct stats {
  std::size_t prompt_tokens = 0;
  std::size_t prefilled_tokens = 0;   // < prompt_tokens only when interrupted during prefill
  std::size_t generated_tokens = 0;
  std::size_t decode_steps = 0;       // forward steps after the prompt (the first generated token
                                      // comes from the prompt's last step, so usually n - 1)
  double load_seconds = 0;            // tokenizer + model (backend) load
  double prefill_seconds = 0;
  double first_token_seconds = -1;    // from the start of prefill to the first token; < 0: none
  double decode_seconds = 0;          // the decode steps only
  std::uint64_t context = 0;
  int max_tokens = 0;
  stop_reason stop = stop_reason::token_limit;
  std::string stop_string;            // stop == stop_string: which one
};

enum class phase { loading_model, prefill };

/// What run() reports while it works. Every member may be empty.
struct events {
  std::function<void(std::string_view)> text;  // decoded text as tokens complete it
  std::function<void(std::string_view)> note;  // one-line notes (writing the default model)
  /// loading_model: (0, 1) when loading starts, (1, 1) when done; prefill: (tokens fed, prompt
  /// tokens) after each token.
  std::function<void(phase, std::size_t done, std::size_t total)> progress;
  std::function<bool()> stop_requested;        // polled before every forward step
};

/// Where the embedded default model lives ($ORDO_CACHE or ~/.cache/ordo, file tiny-default.gguf).
std::filesystem::path default_model_path();
/// Why the file at `path` is not the embedded default model (not a GGUF, not a valid DS4 model,
/// other provenance, tensor bytes differing from the recipe); empty when it is.
std::string default_model_problem(const std::filesystem::path& path);
/// Writes the default model if it is missing or default_model_problem finds it unusable (a note
/// says which and why); returns its path.
std::filesystem::path ensure_default_model(const std::function<void(std::string_view)>& note);

/// Throws std::runtime_error unless the GGUF at `path` says general.architecture "deepseek4"
/// (checked before anything else reads the file, so a llama GGUF is named as such).
void check_ds4_architecture(const std::filesystem::path& path);

/// Runs the whole generation. Throws std::runtime_error as "<what failed>: <why>" (model of the
/// wrong architecture, prompt that does not fit the context, ...), std::invalid_argument for
/// options out of range.
stats run(const options& opt, const events& ev);

}  // namespace ordo::generate
