/// Text generation: render a DS4 chat prompt, tokenize it, feed it to an eval backend token by
/// token, then greedy-decode, streaming the text as it completes, inside a context of
/// `options::context` positions (prompt + generated tokens). The default model is ordo's tiny
/// trained DS4-architecture model (models/tiny-ds4/: byte vocabulary, trained on Debian's license
/// texts and man pages), compiled into the binary (embedded_model.hpp) and written to the cache
/// on first use, with its MTP sidecar.
///
/// The caller (the CLI) sees only options, events and stats; which engine computes the logits is
/// behind eval::make_backend (chosen by eval::choose_backend), so swapping the engine does not
/// touch reporting. The decode loop itself is decode_loop.hpp's, shared with `ordo chat`.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chat/think_mode.hpp"
#include "generate/decode_loop.hpp"
#include "ordo/ops/sampling/problem.hpp"

namespace ordo::generate {

/// --spec mtp|off|auto (auto, the default: mtp when the backend and the model have it),
/// --spec-width N|auto (0: auto, the adaptive width), --spec-margin X (the margin gate).
struct speculation {
  std::string mode = "auto";
  int width = 0;
  float margin = 0.0f;
};

/// Turns speculation on for `b` per `s` (before anything is fed); the decoder or null (off).
/// Throws std::runtime_error for --spec mtp on a backend or model without it.
runtime::speculative_decoder* start_speculation(eval::backend& b, const speculation& s, const token_sampler& sampler);

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
  std::filesystem::path mtp_model;    // antirez/ds4 MTP sidecar (the default model brings its own)
  speculation spec;                   // --spec, --spec-width, --spec-margin
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
  std::optional<runtime::spec_stats> spec;  // when speculation ran
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

/// Where the embedded default model lives ($ORDO_CACHE or ~/.cache/ordo, file tiny-default.gguf),
/// and its ds4 MTP sidecar beside it (tiny-default-mtp.gguf).
std::filesystem::path default_model_path();
std::filesystem::path default_mtp_model_path();
/// Why the file at `path` is not the embedded default model (not a GGUF, not a valid DS4 model,
/// bytes differing from the embedded ones); empty when it is.
std::string default_model_problem(const std::filesystem::path& path);
/// Writes the default model and its MTP sidecar where either is missing or not the embedded
/// bytes (a note says which and why); returns the main model's path.
std::filesystem::path ensure_default_model(const std::function<void(std::string_view)>& note);

/// Throws std::runtime_error unless the GGUF at `path` says general.architecture "deepseek4"
/// (checked before anything else reads the file, so a llama GGUF is named as such).
void check_ds4_architecture(const std::filesystem::path& path);

/// Runs the whole generation. Throws std::runtime_error as "<what failed>: <why>" (model of the
/// wrong architecture, prompt that does not fit the context, ...), std::invalid_argument for
/// options out of range.
stats run(const options& opt, const events& ev);

}  // namespace ordo::generate
