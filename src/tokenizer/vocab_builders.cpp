#include "tokenizer/vocab_builders.hpp"

#include <fstream>
#include <nlohmann/json.hpp>

#include "tokenizer/bpe_tokenizer.hpp"
#include "tokenizer/byte_level.hpp"
#include "tokenizer/ds4_tokens.hpp"

namespace ordo::tokenizer {
namespace {

using json = nlohmann::json;

json read_json(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw error(path.string() + ": cannot open");
  try {
    return json::parse(in);
  } catch (const json::exception& e) {
    throw error(path.string() + ": not valid JSON: " + e.what());
  }
}

/// llama.cpp's converter: `does_token_look_special` for the shapes DeepSeek uses.
bool looks_special(const std::string& s) {
  auto wraps = [&](std::string_view open, std::string_view close) {
    return s.size() >= open.size() + close.size() && s.compare(0, open.size(), open) == 0 &&
           s.compare(s.size() - close.size(), close.size(), close) == 0;
  };
  return wraps("<|", "|>") || wraps("<｜", "｜>");
}

void place(vocab& v, std::size_t id, std::string text, token_type type) {
  if (v.tokens.size() <= id) {
    v.tokens.resize(id + 1);
    v.types.resize(id + 1, token_type::undefined);
  }
  v.tokens[id] = std::move(text);
  v.types[id] = type;
}

int32_t special_id_from_config(const json& cfg, const char* key, const vocab& v, int32_t fallback) {
  if (!cfg.contains(key) || cfg[key].is_null()) return fallback;
  const json& t = cfg[key];
  const std::string text = t.is_object() ? t.value("content", std::string{}) : t.get<std::string>();
  const int32_t id = v.find(text);
  return id >= 0 ? id : fallback;
}

}  // namespace

vocab vocab_from_tokenizer_json(const std::filesystem::path& path) {
  const json j = read_json(path);
  const std::string where = path.string() + ": ";
  if (!j.contains("model") || !j["model"].is_object()) throw error(where + "no 'model' object");
  const json& m = j["model"];
  if (m.value("type", std::string{}) != "BPE")
    throw error(where + "model.type is '" + m.value("type", std::string{}) + "', expected 'BPE'");
  if (!m.contains("vocab") || !m["vocab"].is_object()) throw error(where + "no model.vocab object");
  if (!m.contains("merges") || !m["merges"].is_array()) throw error(where + "no model.merges array");

  vocab v;
  v.model = "gpt2";
  v.pre = "joyai-llm";
  for (const auto& [text, id] : m["vocab"].items()) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() > (1 << 24))
      throw error(where + "model.vocab['" + text + "'] is not a token id");
    place(v, id.get<std::size_t>(), text, token_type::normal);
  }
  if (j.contains("added_tokens")) {
    for (const json& a : j["added_tokens"]) {
      const auto id = a.at("id").get<std::size_t>();
      const std::string text = a.at("content").get<std::string>();
      const bool special = a.value("special", false);
      place(v, id, text, special || looks_special(text) ? token_type::control : token_type::user_defined);
    }
  }
  for (std::size_t i = 0; i < v.tokens.size(); ++i)
    if (v.types[i] == token_type::undefined) {
      v.tokens[i] = "[PAD" + std::to_string(i) + "]";
      v.types[i] = token_type::unused;
    }
  v.merges.reserve(m["merges"].size());
  for (const json& mg : m["merges"]) {
    if (mg.is_string()) {
      v.merges.push_back(mg.get<std::string>());
    } else if (mg.is_array() && mg.size() == 2) {  // tokenizers >= 0.20 writes pairs
      v.merges.push_back(mg[0].get<std::string>() + " " + mg[1].get<std::string>());
    } else {
      throw error(where + "model.merges[" + std::to_string(v.merges.size()) + "] is neither 'a b' nor [a, b]");
    }
  }
  v.bos_id = 0;
  v.eos_id = 1;
  const auto config_path = path.parent_path() / "tokenizer_config.json";
  if (std::filesystem::exists(config_path)) {
    const json cfg = read_json(config_path);
    v.bos_id = special_id_from_config(cfg, "bos_token", v, v.bos_id);
    v.eos_id = special_id_from_config(cfg, "eos_token", v, v.eos_id);
    v.pad_id = special_id_from_config(cfg, "pad_token", v, v.pad_id);
    v.add_bos = cfg.value("add_bos_token", true);
  }
  return v;
}

vocab deepseek_vocab_from_tokenizer_json(const std::filesystem::path& path) {
  return deepseek_vocab_from(vocab_from_tokenizer_json(path), path.string());
}

vocab deepseek_vocab_from(vocab v, const std::string& source) {
  const std::pair<std::size_t, std::string_view> additions[] = {
      {128798, ds4::think_open}, {128799, ds4::think_close}, {128794, ds4::dsml}};
  for (const auto& [id, text] : additions) {
    if (id < v.tokens.size() && v.types[id] != token_type::unused &&
        v.tokens[id].rfind("<｜place▁holder▁no▁", 0) != 0 && v.tokens[id] != text)
      throw error(source + ": DS4 puts '" + std::string(text) + "' at id " + std::to_string(id) +
                  " but that id already holds '" + v.tokens[id] + "'");
    // Not special-looking, so user-defined, as llama.cpp's converter types them.
    place(v, id, std::string(text), token_type::user_defined);
  }
  if (v.tokens.size() > std::size_t(ds4::vocab_size))
    throw error(source + ": " + std::to_string(v.tokens.size()) + " tokens do not fit DS4's " +
                std::to_string(ds4::vocab_size));
  pad_vocab(v, std::size_t(ds4::vocab_size));
  return v;
}

vocab byte_vocab() {
  vocab v;
  v.model = "gpt2";
  v.pre = "joyai-llm";
  for (int b = 0; b < 256; ++b) {
    v.tokens.push_back(byte_symbols()[std::size_t(b)]);
    v.types.push_back(token_type::normal);
  }
  for (std::string_view s : {ds4::bos, ds4::eos, ds4::user, ds4::assistant, ds4::think_open, ds4::think_close, ds4::dsml}) {
    v.tokens.emplace_back(s);
    v.types.push_back(token_type::control);
  }
  v.bos_id = 256;
  v.eos_id = 257;
  v.pad_id = 257;
  return v;
}

void pad_vocab(vocab& v, std::size_t size) {
  while (v.tokens.size() < size) {
    v.tokens.push_back("[PAD" + std::to_string(v.tokens.size()) + "]");
    v.types.push_back(token_type::unused);
  }
}

}  // namespace ordo::tokenizer
