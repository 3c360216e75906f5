#include "convert/vocab_section.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "synth/synth.hpp"
#include "synth/vocab.hpp"
#include "tokenizer/vocab_builders.hpp"

namespace ordo::convert {

std::vector<gguf::key_value> vocab_section(const vocab_options& opts, const std::filesystem::path& checkpoint_dir,
                                           std::uint32_t n_vocab, std::string& note) {
  namespace fs = std::filesystem;
  tokenizer::vocab v;
  std::string origin;
  switch (opts.source) {
    case vocab_source::none:
      note = "no tokenizer section (--vocab none): llama.cpp will not load this file";
      return {};
    case vocab_source::bytes:
      v = tokenizer::byte_vocab();
      origin = "the byte vocabulary";
      break;
    case vocab_source::deepseek: {
      const fs::path json = opts.tokenizer_json.value_or(synth::default_tokenizer_json());
      v = tokenizer::deepseek_vocab_from_tokenizer_json(json);
      origin = "DS4's vocabulary from " + json.string();
      break;
    }
    case vocab_source::json:
    case vocab_source::automatic: {
      fs::path json;
      if (opts.tokenizer_json) json = *opts.tokenizer_json;
      else if (fs::exists(checkpoint_dir / "tokenizer.json")) json = checkpoint_dir / "tokenizer.json";
      if (json.empty()) {
        if (opts.source == vocab_source::json) throw std::runtime_error("--vocab json needs --tokenizer-json");
        note = fmt::format("no tokenizer.json in {}: the GGUF has no tokenizer section (llama.cpp needs one; "
                           "use --tokenizer-json or --vocab bytes|deepseek)",
                           checkpoint_dir.string());
        return {};
      }
      v = tokenizer::vocab_from_tokenizer_json(json);
      origin = json.string();
      break;
    }
  }
  if (v.tokens.size() > n_vocab)
    throw std::runtime_error(fmt::format("{}: {} tokens, more than the model's vocab_size {} (embedding rows)", origin,
                                         v.tokens.size(), n_vocab));
  const auto own = v.tokens.size();
  tokenizer::pad_vocab(v, n_vocab);
  note = fmt::format("tokenizer: {} ({} tokens{})", origin, own,
                     own < n_vocab ? fmt::format(", padded to {}", n_vocab) : std::string());
  return synth::vocab_metadata(v);
}

vocab_source parse_vocab_source(const std::string& text) {
  if (text == "auto") return vocab_source::automatic;
  if (text == "json") return vocab_source::json;
  if (text == "deepseek") return vocab_source::deepseek;
  if (text == "bytes") return vocab_source::bytes;
  if (text == "none") return vocab_source::none;
  throw std::runtime_error("--vocab " + text + ": expected auto, json, deepseek, bytes or none");
}

}  // namespace ordo::convert
