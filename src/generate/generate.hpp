/// Text generation: render a DS4 chat prompt, tokenize it, feed it to an eval backend token by
/// token, then greedy-decode, streaming the text as it completes. The default model is a tiny
/// random-weight DS4-architecture GGUF that `ordo synth` writes on first use (deterministic, so
/// "embedded": its recipe is in the binary); its text is gibberish by construction.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "chat/think_mode.hpp"

namespace ordo::generate {

struct options {
  std::filesystem::path model;        // empty: the embedded default model
  std::string backend = "ref";
  std::string system;                 // empty: no system text
  std::string prompt;
  chat::think_mode think = chat::think_mode::none;
  int max_tokens = 32;
  std::uint64_t context = 32768;      // think max needs >= 393216 (else it runs as high)
};

struct stats {
  std::size_t prompt_tokens = 0, generated_tokens = 0;
  double prefill_seconds = 0, decode_seconds = 0;
  bool stopped_at_eos = false;
};

/// Where the embedded default model lives ($ORDO_CACHE or ~/.cache/ordo, file tiny-default.gguf).
std::filesystem::path default_model_path();
/// Writes the default model if it is not there yet; returns its path. Progress goes to `log`.
std::filesystem::path ensure_default_model(const std::function<void(std::string_view)>& log);

/// Runs the whole generation; `on_text` receives decoded text as tokens complete it, `on_log`
/// progress notes (writing the default model).
stats run(const options& opt, const std::function<void(std::string_view)>& on_text,
          const std::function<void(std::string_view)>& on_log);

}  // namespace ordo::generate
