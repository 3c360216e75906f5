// Encode throughput of bpe_tokenizer: concatenates the given text files, encodes the whole text
// as one prompt (as a long prompt is encoded), several times, and prints MB/s and tokens/s of the
// fastest and the median run, for both special-token modes. Also the process CPU time of the
// fastest run, since the shared build machines are often oversubscribed (wall time then
// measures the neighbours as much as the tokenizer).
//   tokenizer_bench -m MODEL.gguf|tokenizer.json FILE... [--runs N]
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tokenizer/gguf_vocab.hpp"

int main(int argc, char** argv) {
  CLI::App app{"tokenizer encode throughput"};
  std::string model;
  std::vector<std::string> files;
  int runs = 5;
  app.add_option("-m,--model", model, "model GGUF or tokenizer.json")->required();
  app.add_option("files", files, "text files, concatenated")->required()->check(CLI::ExistingFile);
  app.add_option("--runs", runs, "timed runs per mode");
  CLI11_PARSE(app, argc, argv);

  std::string text;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    text.append(std::istreambuf_iterator<char>(in), {});
    text += '\n';
  }
  const auto t0 = std::chrono::steady_clock::now();
  const auto tok = ordo::tokenizer::load_tokenizer(model);
  const double load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("text: %zu files, %.2f MB; tokenizer loaded in %.2f s\n", files.size(), text.size() / 1e6, load_s);

  for (auto mode : {ordo::tokenizer::special_tokens::parse, ordo::tokenizer::special_tokens::plain}) {
    std::vector<double> secs;
    double best_cpu = 1e30;
    std::size_t n_tokens = 0;
    for (int r = 0; r < runs; ++r) {
      const std::clock_t c = std::clock();
      const auto a = std::chrono::steady_clock::now();
      const auto ids = tok.encode(text, mode);
      secs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
      best_cpu = std::min(best_cpu, double(std::clock() - c) / CLOCKS_PER_SEC);
      n_tokens = ids.size();
    }
    std::sort(secs.begin(), secs.end());
    const double best = secs.front(), median = secs[secs.size() / 2];
    std::printf("%-6s %zu tokens (%.2f bytes/token): wall best %.1f MB/s (%.2f Mtok/s), median %.1f MB/s; "
                "cpu best %.1f MB/s\n",
                mode == ordo::tokenizer::special_tokens::parse ? "parse" : "plain", n_tokens,
                double(text.size()) / double(n_tokens), text.size() / best / 1e6, n_tokens / best / 1e6,
                text.size() / median / 1e6, text.size() / best_cpu / 1e6);
  }
  return 0;
}
