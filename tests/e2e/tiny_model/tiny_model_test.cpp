// The trained tiny DS4 model (models/tiny-ds4/) as ordo runs it: the embedded default is the
// committed file, it answers chat prompts in words of its training text through the chat
// template, tokenizer and reference forward pass, and its MTP drafts are accepted per depth on
// held-out text far above what the other input pairing gives (docs/decisions.md D1).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <regex>
#include <set>
#include <string>

#include "eval/ref_loader.hpp"
#include "generate/embedded_model.hpp"
#include "generate/generate.hpp"
#include "mtp_acceptance.hpp"
#include "ordo/model/gguf.hpp"

namespace {

namespace fs = std::filesystem;
const fs::path model_dir = fs::path(ORDO_SOURCE_DIR) / "models" / "tiny-ds4";

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool same_bytes(std::span<const std::byte> a, const std::string& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), b.size()) == 0;
}

TEST(tiny_model, the_embedded_default_is_the_committed_model_and_its_mtp_sidecar) {
  EXPECT_TRUE(same_bytes(ordo::generate::embedded_main_model(), read_all(model_dir / "tiny-ds4.gguf")));
  EXPECT_TRUE(same_bytes(ordo::generate::embedded_mtp_model(), read_all(model_dir / "tiny-ds4-mtp.gguf")));
}

std::string answer(const std::string& prompt, int tokens) {
  ordo::generate::options o;
  o.model = model_dir / "tiny-ds4.gguf";
  o.prompt = prompt;
  o.max_tokens = tokens;
  std::string text;
  ordo::generate::events ev;
  ev.text = [&](std::string_view s) { text += s; };
  ordo::generate::run(o, ev);
  return text;
}

// Readable text: the answers to chat prompts are words of the training text (the 8,000 most
// frequent words of models/tiny-ds4's corpus, words.txt). A model whose weights mean nothing
// writes byte salad (the synthetic tiny model: almost no alphabetic run is a word).
TEST(tiny_model, answers_chat_prompts_in_words_of_its_training_text) {
  std::set<std::string> vocabulary;
  {
    std::ifstream in(model_dir / "words.txt");
    for (std::string w; in >> w;) vocabulary.insert(w);
  }
  ASSERT_GT(vocabulary.size(), 5000u);
  long words = 0, known = 0;
  for (const char* prompt : {"Hello! Who are you?", "What does ls do?", "What is the GPL license?"}) {
    const std::string a = answer(prompt, 120);
    std::cout << prompt << " -> " << a << "\n";
    const std::regex word("[A-Za-z]+");
    for (auto it = std::sregex_iterator(a.begin(), a.end(), word); it != std::sregex_iterator(); ++it) {
      std::string w = it->str();
      std::transform(w.begin(), w.end(), w.begin(), [](unsigned char ch) { return std::tolower(ch); });
      ++words;
      known += vocabulary.count(w) ? 1 : 0;
    }
  }
  std::cout << known << " of " << words << " words are words of the training text\n";
  EXPECT_GE(words, 30);
  EXPECT_GE(double(known), 0.9 * double(words));
}

std::string heldout_prompt(std::size_t offset, std::size_t bytes) {
  const std::string text = read_all(model_dir / "heldout_sample.txt");
  return text.substr(offset, bytes);
}

std::vector<int32_t> byte_tokens(const std::string& s) {
  std::vector<int32_t> t;
  for (unsigned char ch : s) t.push_back(ch);
  return t;
}

TEST(tiny_model, mtp_drafts_are_accepted_per_depth_on_heldout_text) {
  const auto main = ordo::gguf::file::open(model_dir / "tiny-ds4.gguf");
  const auto mtp = ordo::gguf::file::open(model_dir / "tiny-ds4-mtp.gguf");
  const auto m = ordo::eval::load_ref_model(main, &mtp);
  constexpr int depths = 5;
  std::vector<long> tried(depths, 0), hits(depths, 0), tried_ds4(1, 0), hits_ds4(1, 0);
  for (std::size_t offset : {1500u, 5400u, 6400u}) {  // held-out text that shares little with training (no coreutils boilerplate)
    const auto prompt = byte_tokens(heldout_prompt(offset, 200));
    const auto a = ordo::e2e::measure_mtp_acceptance(m, prompt, 96, depths, ordo::e2e::pairing::next_token,
                                                     ordo::ref::simulations::all_on());
    for (int k = 0; k < depths; ++k) {
      tried[k] += a.tried[k];
      hits[k] += std::lround(a.per_depth[k] * a.tried[k]);
    }
    const auto b = ordo::e2e::measure_mtp_acceptance(m, prompt, 96, 1, ordo::e2e::pairing::ds4,
                                                     ordo::ref::simulations::all_on());
    tried_ds4[0] += b.tried[0];
    hits_ds4[0] += std::lround(b.per_depth[0] * b.tried[0]);
  }
  std::vector<double> acc(depths);
  std::cout << "MTP acceptance per depth (reference, simulations on, D1 pairing):";
  for (int k = 0; k < depths; ++k) {
    acc[k] = tried[k] ? double(hits[k]) / double(tried[k]) : 0.0;
    std::cout << " d" << k + 1 << " " << acc[k] << " (" << hits[k] << "/" << tried[k] << ")";
  }
  const double ds4 = double(hits_ds4[0]) / double(tried_ds4[0]);
  std::cout << "\nds4 pairing, depth 1: " << ds4 << " (" << hits_ds4[0] << "/" << tried_ds4[0] << ")\n";
  ASSERT_GT(tried[0], 150);
  EXPECT_GE(acc[0], ORDO_TINY_MIN_D1_ACCEPTANCE);
  EXPECT_GT(acc[0], ds4 + 0.1) << "the pairing the block was trained with must draft far better";
}

}  // namespace
