/// The tokenizer section (`tokenizer.ggml.*`) of a converted GGUF. llama.cpp refuses a model
/// without one, and ordo's tokenizer reads it, so the converter writes one whenever it can:
/// the checkpoint's own tokenizer.json by default, DS4's vocabulary built from a DeepSeek-V3
/// tokenizer.json, or the byte vocabulary of tiny test models; padded with unused entries to the
/// model's vocab_size (the embedding rows). Built by src/tokenizer, written by synth's writer.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ordo/model/gguf_value.hpp"

namespace ordo::convert {

enum class vocab_source {
  automatic,  // tokenizer.json (given or beside the checkpoint) if present, else none
  json,       // exactly the given tokenizer.json
  deepseek,   // DS4 Flash's vocabulary from a DeepSeek-V3 tokenizer.json
  bytes,      // 256 byte tokens + DS4's prompt tokens (tiny models)
  none,
};

struct vocab_options {
  vocab_source source = vocab_source::automatic;
  std::optional<std::filesystem::path> tokenizer_json;
};

/// The metadata entries, or empty for none. `checkpoint_dir` is where automatic looks for
/// tokenizer.json; `n_vocab` the model's vocab_size. `note` receives what was chosen.
/// Throws naming the file when the tokenizer has more tokens than the model.
std::vector<gguf::key_value> vocab_section(const vocab_options& opts, const std::filesystem::path& checkpoint_dir,
                                           std::uint32_t n_vocab, std::string& note);

/// "auto", "json", "deepseek", "bytes", "none".
vocab_source parse_vocab_source(const std::string& text);

}  // namespace ordo::convert
