// `ordo synth`: writes a deterministic random-weight DS4 GGUF (docs/synth.md). Thin: parsing and
// progress display only; the model lives in src/synth.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <map>
#include <string>
#include <unistd.h>

#include "cli.hpp"
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
  CLI::App cli{"Write a deterministic random-weight DeepSeek V4 Flash (DS4) architecture GGUF"};
  cli.add_option("--preset", preset, "tiny (oracle test shape), small (a few hundred MB), full (real DS4 Flash dims)")
      ->check(CLI::IsMember({"tiny", "small", "full"}));
  cli.add_option("--set", sets, "override a deepseek4.* key: KEY=VALUE (arrays comma-separated), repeatable");
  cli.add_option("--seed", opt.seed, "random seed");
  cli.add_option("--dense", dense, "type of non-expert matmul weights: f32|f16|bf16|q8_0 (q8_0 keeps ds4's F16 tensors F16)");
  cli.add_option("--experts", experts, "routed expert type: f32|f16|bf16|q8_0|mxfp4|q4_k|q2_k|iq2_xxs");
  cli.add_flag("--mtp", opt.mtp, "add an MTP block (ds4 naming: a separate mtp.0.* file)");
  cli.add_option("--naming", naming, "tensor naming / MTP convention: ds4 (antirez/ds4) or llama (llama.cpp)")
      ->check(CLI::IsMember({"ds4", "llama"}));
  cli.add_option("--vocab", vocab, "bytes (byte vocabulary padded to vocab_size) or deepseek (the real DS4 vocabulary)")
      ->check(CLI::IsMember({"bytes", "deepseek"}));
  cli.add_option("--tokenizer-json", opt.tokenizer_json, "tokenizer.json for --vocab deepseek")
      ->default_str(synth::default_tokenizer_json().string());
  cli.add_option("-o,--out", opt.out, "output GGUF")->required();
  cli.add_option("--mtp-out", opt.mtp_out, "MTP file for --naming ds4 --mtp (default: <out>-mtp.gguf)");
  cli.add_flag("-q,--quiet", quiet, "no progress on stderr");
  if (auto rc = app::parse(cli, argc, argv)) return *rc;

  opt.base = preset == "tiny" ? synth::preset::tiny : preset == "small" ? synth::preset::small : synth::preset::full;
  opt.naming = naming == "ds4" ? model::ds4_naming::ds4 : model::ds4_naming::llama;
  opt.vocab = vocab == "bytes" ? synth::vocab_kind::bytes : synth::vocab_kind::deepseek;
  if (opt.tokenizer_json.empty()) opt.tokenizer_json = synth::default_tokenizer_json();
  auto parse_type = [](const std::string& s, const char* flag) {
    auto t = gguf::parse_ggml_type(s);
    if (!t) throw app::usage_error(std::string(flag) + " " + s + ": unknown type");
    return *t;
  };
  if (!dense.empty()) opt.dense = parse_type(dense, "--dense");
  if (!experts.empty()) opt.experts = parse_type(experts, "--experts");
  for (const std::string& s : sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0) throw app::usage_error("--set " + s + ": expected KEY=VALUE");
    opt.overrides.emplace_back(s.substr(0, eq), s.substr(eq + 1));
  }

  // Every fault make_plan finds comes from the options (a --set value, a type, a vocabulary file).
  synth::plan plan;
  try {
    plan = synth::make_plan(opt);
  } catch (const std::exception& e) {
    throw app::usage_error(e.what());
  }
  for (const synth::file_plan& f : plan.files) app::check_output_path(&f == &plan.files[0] ? "-o" : "--mtp-out", f.path);
  const app::interrupt_guard guard;  // Ctrl-C / SIGTERM: stop and remove the .partial file
  for (const synth::file_plan& f : plan.files) {
    progress_line line(f.path.string());
    try {
      synth::write_file(f, opt.seed, quiet ? synth::progress_fn{} : synth::progress_fn{std::ref(line)},
                        [] { return app::interrupt_signal() != 0; });
    } catch (const synth::interrupted&) {
      std::fprintf(stderr, "%sordo synth: interrupted by %s: %s not written (%s.partial removed)\n",
                   quiet ? "" : "\n", strsignal(app::interrupt_signal()), f.path.c_str(), f.path.c_str());
      return 128 + app::interrupt_signal();
    } catch (const std::exception& e) {
      throw std::runtime_error("writing " + f.path.string() + ": " + e.what());
    }
  }
  return 0;
}

}  // namespace

ORDO_SUBCOMMAND(synth, "write a deterministic random-weight DS4 GGUF (tiny/small/full presets)", run_synth);
