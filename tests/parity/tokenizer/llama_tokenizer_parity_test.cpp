// llama.cpp (the prebuilt oracle of oracles.md §1) tokenizing with the DS4 tokenizer metadata
// ordo writes (gguf_metadata of the DS4 vocabulary, in a vocab-only GGUF). Proves the metadata
// is what llama.cpp expects (gpt2 / joyai-llm, token types, merges, ids) and that ordo (default
// regex_whitespace::unicode) tokenizes corpus.jsonl exactly as llama.cpp does.
#include <gtest/gtest.h>
#include <llama.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ordo/model/gguf.hpp"
#include "tokenizer/bpe_tokenizer.hpp"
#include "tokenizer/ds4_tokens.hpp"
#include "tokenizer/gguf_vocab.hpp"
#include "tokenizer/vocab_builders.hpp"

namespace fs = std::filesystem;
using namespace ordo::tokenizer;
using nlohmann::json;

namespace {

const fs::path tokenizer_json = fs::path(ORDO_ORACLE_DIR) / "tokenizer/models/tokenizer.json";
const fs::path corpus_path = fs::path(ORDO_TOKENIZER_PARITY_DIR) / "corpus.jsonl";

void quiet(ggml_log_level level, const char* text, void*) {
  if (level == GGML_LOG_LEVEL_ERROR) std::fputs(text, stderr);
}

std::vector<int32_t> llama_ids(const llama_vocab* v, const std::string& text, bool parse_special) {
  std::vector<llama_token> out(text.size() + 8);
  const int n = llama_tokenize(v, text.data(), int32_t(text.size()), out.data(), int32_t(out.size()), false,
                               parse_special);
  EXPECT_GE(n, 0) << "token buffer too small for " << json(text).dump();
  out.resize(std::size_t(std::max(n, 0)));
  return {out.begin(), out.end()};
}

}  // namespace

TEST(llama_tokenizer_parity, ds4_metadata_tokenizes_like_llama_cpp) {
  if (!fs::exists(tokenizer_json)) {
    GTEST_SKIP() << tokenizer_json << " missing (run scripts/fetch-oracles)";
  }
  // The default whitespace semantics (unicode) is the one llama.cpp implements.
  const bpe_tokenizer ours(deepseek_vocab_from_tokenizer_json(tokenizer_json));

  // llama.cpp reads the architecture's hyperparameters even for a vocab-only load: give the few
  // a "llama" model requires; tokenization depends on tokenizer.ggml.* alone.
  using ordo::gguf::value;
  std::vector<ordo::gguf::key_value> kv = {
      {"general.architecture", value::string("llama")},
      {"llama.context_length", value::u32(4096)},
      {"llama.embedding_length", value::u32(64)},
      {"llama.block_count", value::u32(1)},
      {"llama.feed_forward_length", value::u32(128)},
      {"llama.attention.head_count", value::u32(1)},
      {"llama.attention.layer_norm_rms_epsilon", value::f32(1e-6f)},
  };
  for (auto& e : gguf_metadata(ours.vocabulary())) kv.push_back(std::move(e));
  const fs::path path = fs::temp_directory_path() / ("ordo_ds4_vocab_" + std::to_string(::getpid()) + ".gguf");
  ordo::gguf::write_file(path, kv, {}, {});

  llama_log_set(quiet, nullptr);
  llama_backend_init();
  llama_model_params mp = llama_model_default_params();
  mp.vocab_only = true;
  mp.use_extra_bufts = false;  // as every oracle load: the plain CPU path on any x86-64 (issue 7)
  llama_model* model = llama_model_load_from_file(path.c_str(), mp);
  fs::remove(path);
  ASSERT_NE(model, nullptr) << "llama.cpp could not load the vocab-only GGUF";
  const llama_vocab* v = llama_model_get_vocab(model);
  EXPECT_EQ(llama_vocab_n_tokens(v), int32_t(ours.size()));
  EXPECT_EQ(llama_vocab_bos(v), ours.bos_id());
  EXPECT_EQ(llama_vocab_eos(v), ours.eos_id());

  std::ifstream in(corpus_path, std::ios::binary);
  std::size_t n = 0, compared_plain = 0;
  int failures = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    const std::string text = json::parse(line).get<std::string>();
    ++n;
    const auto a = ours.encode(text, special_tokens::parse);
    const auto b = llama_ids(v, text, true);
    if (a != b && failures++ < 15)
      ADD_FAILURE() << "special tokens parsed: " << json(text).dump() << "\n  ordo  " << json(a).dump()
                    << "\n  llama " << json(b).dump();
    // llama.cpp matches user-defined tokens (<think>, </think>, ｜DSML｜) even when told not to
    // parse specials; ordo's plain mode never matches any, so compare where none occurs.
    if (text.find("think>") != std::string::npos || text.find(ds4::dsml) != std::string::npos) continue;
    ++compared_plain;
    const auto c = ours.encode(text, special_tokens::plain);
    const auto d = llama_ids(v, text, false);
    if (c != d && failures++ < 15)
      ADD_FAILURE() << "plain: " << json(text).dump() << "\n  ordo  " << json(c).dump() << "\n  llama "
                    << json(d).dump();
  }
  EXPECT_EQ(failures, 0);
  EXPECT_GE(n, 1000u);
  std::printf("compared %zu strings with specials parsed, %zu plain\n", n, compared_plain);
  llama_model_free(model);
  llama_backend_free();
}
