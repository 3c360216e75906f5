#include "synth/vocab.hpp"

#include <stdexcept>

#include "tokenizer/vocab_builders.hpp"

namespace ordo::synth {

std::filesystem::path default_tokenizer_json() { return ORDO_DEFAULT_TOKENIZER_JSON; }

tokenizer::vocab make_vocab(vocab_kind kind, const std::filesystem::path& tokenizer_json, uint32_t n_vocab) {
  if (kind == vocab_kind::deepseek) {
    if (tokenizer_json.empty()) throw std::runtime_error("--vocab deepseek needs --tokenizer-json");
    // The real vocabulary decides the size; token_embd and output follow it.
    return tokenizer::deepseek_vocab_from_tokenizer_json(tokenizer_json);
  }
  tokenizer::vocab v = tokenizer::byte_vocab();
  if (n_vocab < v.tokens.size())
    throw std::runtime_error("vocab_size = " + std::to_string(n_vocab) + " is smaller than the byte vocabulary (" +
                             std::to_string(v.tokens.size()) + " tokens)");
  tokenizer::pad_vocab(v, n_vocab);
  return v;
}

std::vector<gguf::key_value> vocab_metadata(const tokenizer::vocab& v) {
  std::vector<gguf::key_value> kv;
  kv.push_back({"tokenizer.ggml.model", gguf::value::string(v.model)});
  kv.push_back({"tokenizer.ggml.pre", gguf::value::string(v.pre)});
  kv.push_back({"tokenizer.ggml.tokens", gguf::value::array_of(v.tokens)});
  kv.push_back({"tokenizer.ggml.token_type", gguf::value::array_of(tokenizer::to_int32(v.types))});
  kv.push_back({"tokenizer.ggml.merges", gguf::value::array_of(v.merges)});
  if (v.bos_id >= 0) kv.push_back({"tokenizer.ggml.bos_token_id", gguf::value::u32(static_cast<uint32_t>(v.bos_id))});
  if (v.eos_id >= 0) kv.push_back({"tokenizer.ggml.eos_token_id", gguf::value::u32(static_cast<uint32_t>(v.eos_id))});
  if (v.pad_id >= 0)
    kv.push_back({"tokenizer.ggml.padding_token_id", gguf::value::u32(static_cast<uint32_t>(v.pad_id))});
  kv.push_back({"tokenizer.ggml.add_bos_token", gguf::value::boolean(v.add_bos)});
  return kv;
}

}  // namespace ordo::synth
