// `ordo synth`: writes a deterministic random-weight DS4 GGUF (docs/synth.md). Thin: parsing and
// progress display only; the model lives in src/synth.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <unistd.h>

#include "subcommand.hpp"
#include "synth/synth.hpp"

namespace {

using namespace ordo;

// One line per second at most (plus the last): bytes, rate, ETA, current tensor.
class progress_line {
 public:
  explicit progress_line(std::string file) : file_(std::move(file)), start_(clock::now()), last_(start_) {}
  void operator()(const gguf::write_progress& p) {
    const auto now = clock::now();
    const bool done = p.tensor_name.empty();
    if (!done && now - last_ < std::chrono::seconds(1)) return;
    last_ = now;
    const double secs = std::chrono::duration<double>(now - start_).count();
    const double rate = secs > 0 ? double(p.bytes_written) / secs : 0.0;
    const double eta = rate > 0 ? double(p.bytes_total - p.bytes_written) / rate : 0.0;
    std::fprintf(stderr, "%s%s: %.2f / %.2f GiB  %.0f MiB/s  ETA %02d:%02d  %.*s%s", tty_ ? "\r\033[K" : "",
                 file_.c_str(), double(p.bytes_written) / (1 << 30), double(p.bytes_total) / (1 << 30), rate / (1 << 20),
                 int(eta) / 60, int(eta) % 60, int(p.tensor_name.size()), p.tensor_name.data(),
                 done || !tty_ ? "\n" : "");
  }

 private:
  using clock = std::chrono::steady_clock;
  std::string file_;
  clock::time_point start_, last_;
  bool tty_ = isatty(2);
};

int run_synth(int argc, char** argv) {
  synth::options opt;
  std::string preset = "tiny", dense, experts, naming = "ds4", vocab = "bytes";
  std::vector<std::string> sets;
  bool quiet = false;
  CLI::App app{"Write a deterministic random-weight DeepSeek V4 Flash (DS4) architecture GGUF"};
  app.add_option("--preset", preset, "tiny (oracle test shape), small (a few hundred MB), full (real DS4 Flash dims)")
      ->check(CLI::IsMember({"tiny", "small", "full"}));
  app.add_option("--set", sets, "override a deepseek4.* key: KEY=VALUE (arrays comma-separated), repeatable");
  app.add_option("--seed", opt.seed, "random seed");
  app.add_option("--dense", dense, "type of non-expert matmul weights: f32|f16|bf16|q8_0 (q8_0 keeps ds4's F16 tensors F16)");
  app.add_option("--experts", experts, "routed expert type: f32|f16|bf16|q8_0|mxfp4|q4_k|q2_k|iq2_xxs");
  app.add_flag("--mtp", opt.mtp, "add an MTP block (ds4 naming: a separate mtp.0.* file)");
  app.add_option("--naming", naming, "tensor naming / MTP convention: ds4 (antirez/ds4) or llama (llama.cpp)")
      ->check(CLI::IsMember({"ds4", "llama"}));
  app.add_option("--vocab", vocab, "bytes (byte vocabulary padded to vocab_size) or deepseek (the real DS4 vocabulary)")
      ->check(CLI::IsMember({"bytes", "deepseek"}));
  app.add_option("--tokenizer-json", opt.tokenizer_json, "tokenizer.json for --vocab deepseek")
      ->default_str(synth::default_tokenizer_json().string());
  app.add_option("-o,--out", opt.out, "output GGUF")->required();
  app.add_option("--mtp-out", opt.mtp_out, "MTP file for --naming ds4 --mtp (default: <out>-mtp.gguf)");
  app.add_flag("-q,--quiet", quiet, "no progress on stderr");
  CLI11_PARSE(app, argc, argv);

  opt.base = preset == "tiny" ? synth::preset::tiny : preset == "small" ? synth::preset::small : synth::preset::full;
  opt.naming = naming == "ds4" ? model::ds4_naming::ds4 : model::ds4_naming::llama;
  opt.vocab = vocab == "bytes" ? synth::vocab_kind::bytes : synth::vocab_kind::deepseek;
  if (opt.tokenizer_json.empty()) opt.tokenizer_json = synth::default_tokenizer_json();
  auto parse_type = [](const std::string& s, const char* flag) {
    auto t = gguf::parse_ggml_type(s);
    if (!t) throw std::runtime_error(std::string(flag) + " " + s + ": unknown type");
    return *t;
  };
  if (!dense.empty()) opt.dense = parse_type(dense, "--dense");
  if (!experts.empty()) opt.experts = parse_type(experts, "--experts");
  for (const std::string& s : sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0) throw std::runtime_error("--set " + s + ": expected KEY=VALUE");
    opt.overrides.emplace_back(s.substr(0, eq), s.substr(eq + 1));
  }

  const synth::plan plan = synth::make_plan(opt);
  for (const synth::file_plan& f : plan.files) {
    progress_line line(f.path.string());
    synth::write_file(f, opt.seed, quiet ? synth::progress_fn{} : synth::progress_fn{std::ref(line)});
  }
  return 0;
}

}  // namespace

ORDO_SUBCOMMAND(synth, "write a deterministic random-weight DS4 GGUF (tiny/small/full presets)", run_synth);
