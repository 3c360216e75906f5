// `ordo tokenize`: ids printed for --text and --file, special tokens recognised unless
// --no-special, errors name what is wrong. Uses a GGUF with the byte vocabulary, whose ids are
// the bytes themselves (specials 256..262), so the expected output is written by hand.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "ordo/model/gguf.hpp"
#include "tokenizer/gguf_vocab.hpp"
#include "tokenizer/vocab_builders.hpp"

namespace fs = std::filesystem;

namespace {

struct result {
  int status;
  std::string out;  // stdout and stderr
};

result run(const std::string& args) {
  const std::string cmd = std::string(ORDO_BIN) + " tokenize " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  return {pclose(p), out};
}

class tokenize_cli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ordo_tokenize_cli_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    auto kv = ordo::tokenizer::gguf_metadata(ordo::tokenizer::byte_vocab());
    kv.insert(kv.begin(), {"general.architecture", ordo::gguf::value::string("deepseek4")});
    ordo::gguf::write_file(model(), kv, {}, {});
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string model() const { return (dir_ / "bytes.gguf").string(); }
  fs::path dir_;
};

}  // namespace

TEST_F(tokenize_cli, text_with_and_without_special_tokens) {
  auto r = run("-m " + model() + " --text 'a<｜User｜>b'");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, "97 258 98\n");
  r = run("-m " + model() + " --no-special --text 'a<think>'");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, "97 60 116 104 105 110 107 62\n");
}

TEST_F(tokenize_cli, whitespace_semantics_flag) {
  // No merges in the byte vocabulary, so both give the bytes; the flag must parse and a wrong
  // value must be refused by name.
  auto r = run("-m " + model() + " --regex-whitespace ecmascript --text 'a b'");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, "97 32 98\n");
  r = run("-m " + model() + " --regex-whitespace perl --text x");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("--regex-whitespace"), std::string::npos) << r.out;
}

TEST_F(tokenize_cli, file_bytes_are_tokenized_verbatim) {
  const fs::path f = dir_ / "in.txt";
  std::ofstream(f, std::ios::binary) << "x\n<｜Assistant｜>";
  const auto r = run("-m " + model() + " --file " + f.string() + " --decode");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, "120 10 259\nx\n<｜Assistant｜>\n");
}

TEST_F(tokenize_cli, errors_name_the_problem) {
  auto r = run("-m " + model());
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("--text or --file"), std::string::npos) << r.out;
  r = run("-m " + (dir_ / "missing.gguf").string() + " --text x");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("missing.gguf"), std::string::npos) << r.out;
}
