#include "tokenizer/gguf_vocab.hpp"

#include "tokenizer/vocab_builders.hpp"

namespace ordo::tokenizer {

vocab vocab_from_gguf(const gguf::file& f) {
  vocab v;
  v.model = f.get_string("tokenizer.ggml.model");
  v.pre = f.has("tokenizer.ggml.pre") ? f.get_string("tokenizer.ggml.pre") : std::string("default");
  v.tokens = f.get_array<std::string>("tokenizer.ggml.tokens");
  if (f.has("tokenizer.ggml.merges")) v.merges = f.get_array<std::string>("tokenizer.ggml.merges");
  if (f.has("tokenizer.ggml.token_type")) {
    for (int32_t t : f.get_array<int32_t>("tokenizer.ggml.token_type")) {
      if (t < 0 || t > 6)
        throw error(f.name() + ": tokenizer.ggml.token_type holds " + std::to_string(t) + ", not a token type (0..6)");
      v.types.push_back(static_cast<token_type>(t));
    }
  }
  v.bos_id = f.has("tokenizer.ggml.bos_token_id") ? int32_t(f.get_u32("tokenizer.ggml.bos_token_id")) : -1;
  v.eos_id = f.has("tokenizer.ggml.eos_token_id") ? int32_t(f.get_u32("tokenizer.ggml.eos_token_id")) : -1;
  v.pad_id = f.has("tokenizer.ggml.padding_token_id") ? int32_t(f.get_u32("tokenizer.ggml.padding_token_id")) : -1;
  v.add_bos = f.has("tokenizer.ggml.add_bos_token") ? f.get_bool("tokenizer.ggml.add_bos_token") : true;
  return v;
}

std::vector<gguf::key_value> gguf_metadata(const vocab& v) {
  using gguf::value;
  std::vector<gguf::key_value> kv;
  kv.push_back({"tokenizer.ggml.model", value::string(v.model)});
  kv.push_back({"tokenizer.ggml.pre", value::string(v.pre)});
  kv.push_back({"tokenizer.ggml.tokens", value::array_of(v.tokens)});
  kv.push_back({"tokenizer.ggml.token_type", value::array_of(to_int32(v.types))});
  kv.push_back({"tokenizer.ggml.merges", value::array_of(v.merges)});
  if (v.bos_id >= 0) kv.push_back({"tokenizer.ggml.bos_token_id", value::u32(uint32_t(v.bos_id))});
  if (v.eos_id >= 0) kv.push_back({"tokenizer.ggml.eos_token_id", value::u32(uint32_t(v.eos_id))});
  if (v.pad_id >= 0) kv.push_back({"tokenizer.ggml.padding_token_id", value::u32(uint32_t(v.pad_id))});
  kv.push_back({"tokenizer.ggml.add_bos_token", value::boolean(v.add_bos)});
  kv.push_back({"tokenizer.ggml.add_eos_token", value::boolean(false)});
  return kv;
}

bpe_tokenizer load_tokenizer(const std::filesystem::path& path, regex_whitespace ws) {
  if (path.extension() == ".json") return bpe_tokenizer(vocab_from_tokenizer_json(path), ws);
  const gguf::file f = gguf::file::open(path);
  try {
    return bpe_tokenizer(vocab_from_gguf(f), ws);
  } catch (const error& e) {
    throw error(path.string() + ": " + e.what());
  }
}

}  // namespace ordo::tokenizer
