// `ordo tokenize`: prints the token ids of a text with a model's tokenizer (GGUF), or with the
// vocabulary of a tokenizer.json (for comparing with HF tooling). Logic lives in src/tokenizer.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "cli.hpp"
#include "subcommand.hpp"
#include "tokenizer/bpe_tokenizer.hpp"
#include "tokenizer/gguf_vocab.hpp"

namespace {

int run_tokenize(int argc, char** argv) {
  CLI::App app{"print the token ids of a text"};
  std::string model, text, file;
  bool no_special = false, decode = false;
  std::string whitespace = "unicode";
  app.add_option("-m,--model", model,
                 "model GGUF (tokenizer.ggml.* metadata), or a HF tokenizer.json")->required();
  auto* t = app.add_option("--text", text, "text to tokenize");
  auto* f = app.add_option("--file", file, "file whose bytes to tokenize")->check(CLI::ExistingFile);
  t->excludes(f);
  app.add_flag("--no-special", no_special,
               "tokenize special-token strings such as <｜User｜> as plain text");
  app.add_flag("--decode", decode, "also print the ids decoded back to text");
  app.add_option("--regex-whitespace", whitespace,
                 "what \\s means in the pre-tokenizer: unicode (HF tokenizers, llama.cpp) or ecmascript "
                 "(the JS tokenizer port); they differ at U+0085 and U+FEFF")
      ->check(CLI::IsMember({"unicode", "ecmascript"}));
  if (auto rc = ordo::app::parse(app, argc, argv)) return *rc;
  if (!*t && !*f) throw ordo::app::usage_error("--text or --file is required");
  if (*f) {
    std::ifstream in(file, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  const auto tok = ordo::app::step("reading the tokenizer of " + model, [&] {
    return ordo::tokenizer::load_tokenizer(model, whitespace == "ecmascript"
                                                      ? ordo::tokenizer::regex_whitespace::ecmascript
                                                      : ordo::tokenizer::regex_whitespace::unicode);
  });
  const auto mode = no_special ? ordo::tokenizer::special_tokens::plain : ordo::tokenizer::special_tokens::parse;
  const auto ids = tok.encode(text, mode);
  std::string line;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i) line += ' ';
    line += std::to_string(ids[i]);
  }
  std::printf("%s\n", line.c_str());
  if (decode) std::printf("%s\n", tok.decode(ids).c_str());
  return 0;
}

}  // namespace

ORDO_SUBCOMMAND(tokenize, "print the token ids of --text or --file (-m model.gguf)", run_tokenize);
