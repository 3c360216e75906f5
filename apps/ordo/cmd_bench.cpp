// `ordo bench --synthetic tiny|small|full`: the engine's decode, prefill and verify timings on a
// DS4 model generated in place (src/bench): on the GPU the full DS4 Flash weights are made in
// device memory, since no such file can be copied to a GPU machine. Prints a Markdown table
// with each step's byte floor and a per-entry-kind breakdown of one decode step per context.
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "bench/decode_bench.hpp"
#include "bench/synthetic_model.hpp"
#include "cli.hpp"
#include "ordo/ops/qmv/mma_switch.hpp"
#include "ordo/runtime/device_memory.hpp"
#include "subcommand.hpp"

namespace {

using ordo::app::usage_error;

// A positive integer; `what` says what was expected around it, for the message.
long long parse_positive(const std::string& flag, const std::string& item, const char* what) {
  try {
    std::size_t used = 0;
    const long long v = std::stoll(item, &used);
    if (used == item.size() && v >= 1) return v;
  } catch (const std::exception&) {
  }
  throw usage_error(flag + ": '" + item + "' is not a positive integer (" + what + ")");
}

template <class T>
std::vector<T> parse_list(const std::string& flag, const std::string& text) {
  std::vector<T> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');)
    out.push_back(T(parse_positive(flag, item, "expected a comma-separated list")));
  if (out.empty()) throw usage_error(flag + ": empty list");
  return out;
}

int run_bench(int argc, char** argv) {
  CLI::App app{"Time the engine on a synthetic DS4 model generated in place (decode, prefill, verify)", "ordo bench"};
  std::string preset, layout = "q2", backend = "auto", contexts = "1024,8192,32768", widths = "1,2,3,4,5,6", markdown;
  ordo::bench::synthetic_options mo;
  ordo::bench::decode_bench_options bo;
  app.add_option("--synthetic", preset, "the model: tiny, small or full (DeepSeek V4 Flash dims)")
      ->required()
      ->check(CLI::IsMember({"tiny", "small", "full"}));
  app.add_option("--layout", layout,
                 "routed experts: q2 (IQ2_XXS gate/up, Q2_K down; 81 GB at full), mxfp4, q4_k, q8_0, f32; "
                 "LAYOUT-N keeps the first N layers (mxfp4-30: 145 GiB of MXFP4 do not fit one H200)")
      ->capture_default_str();
  std::string dense;
  app.add_option("--dense", dense, "non-expert matmul type: f32, f16, bf16, q8_0 (default: the preset's; full: q8_0)")
      ->check(CLI::IsMember({"f32", "f16", "bf16", "q8_0"}));
  app.add_option("--layers", mo.n_layer, "main layers (default: the preset's; LAYOUT-N sets it too)");
  app.add_option("--backend", backend, "auto (gpu when a device is present), gpu or cpu")
      ->check(CLI::IsMember({"auto", "gpu", "cpu"}))
      ->capture_default_str();
  app.add_option("--ctx", contexts, "decode at these contexts (comma-separated positions, multiples of 128)")->capture_default_str();
  app.add_option("-n,--decode-tokens", bo.decode_tokens, "timed decode steps per context (after one warm-up)")
      ->check(ordo::app::integer_at_least(1))
      ->capture_default_str();
  app.add_option("--prefill-at", bo.prefill_at, "prefill the --prefill-tokens positions that end here")->capture_default_str();
  app.add_option("--prefill-tokens", bo.prefill_tokens, "prefill tokens timed (0: no prefill timing)")->capture_default_str();
  app.add_option("--chunk", bo.chunk, "prefill chunk (rows per step)")->check(ordo::app::integer_at_least(1))->capture_default_str();
  app.add_option("--verify-widths", widths, "verify rounds of these widths (speculation's k rows), comma-separated")
      ->capture_default_str();
  app.add_option("--verify-at", bo.verify_at, "context of the verify rounds (a multiple of 128)")->capture_default_str();
  app.add_option("--repeats", bo.repeats, "verify rounds timed per width")->check(ordo::app::integer_at_least(1))->capture_default_str();
  bool no_breakdown = false, unfused = false, no_mma = false;
  app.add_flag("--no-breakdown", no_breakdown, "skip the profiled decode step (per-entry times) per context");
  app.add_flag("--unfused", unfused,
               "one quantization and one qmv per matmul call (no shared quantization, no same-input groups): the same bits, "
               "more launches, to measure what fusing them saves");
  app.add_flag("--no-mma", no_mma,
               "Q8_0 matmuls of 8 or more rows on the dp4a kernel instead of the int8 tensor-core one: the same bits, "
               "to measure what the tensor cores save");
  app.add_flag("--mtp", mo.mtp, "also generate the MTP block, so the speculation table has the cost of a draft step");
  app.add_option("--seed", mo.seed, "weights seed")->capture_default_str();
  app.add_option("--markdown", markdown, "also write the report to this file");
  if (auto rc = ordo::app::parse(app, argc, argv)) return *rc;
  bo.breakdown = !no_breakdown;
  bo.fuse_launches = !unfused;
  ordo::ops::qmv::int8_mma_tree::enabled() = !no_mma;
  mo.base = preset == "tiny" ? ordo::synth::preset::tiny : preset == "small" ? ordo::synth::preset::small : ordo::synth::preset::full;
  if (const auto dash = layout.rfind('-'); dash != std::string::npos) {
    mo.n_layer = uint32_t(parse_positive("--layout", layout.substr(dash + 1), "LAYOUT-N: the number of layers"));
    layout.resize(dash);
  }
  mo.layout = layout;
  if (!dense.empty()) mo.dense = *ordo::gguf::parse_ggml_type(dense);
  bo.contexts = parse_list<uint32_t>("--ctx", contexts);
  bo.verify_widths = parse_list<int>("--verify-widths", widths);
  for (uint32_t c : bo.contexts)
    if (c % 128) throw usage_error("--ctx: " + std::to_string(c) + " is not a multiple of 128 (the compression windows)");
  if (bo.verify_at % 128) throw usage_error("--verify-at: " + std::to_string(bo.verify_at) + " is not a multiple of 128");
  if (bo.prefill_tokens > bo.prefill_at || (bo.prefill_at - bo.prefill_tokens) % 128)
    throw usage_error("--prefill-at minus --prefill-tokens must be a non-negative multiple of 128 (got " +
                      std::to_string(bo.prefill_at) + " - " + std::to_string(bo.prefill_tokens) + ")");
  for (int k : bo.verify_widths)
    if (k > 16) throw usage_error("--verify-widths: " + std::to_string(k) + " rows exceed the largest tier (16)");
  mo.gpu = backend == "gpu" || (backend == "auto" && ordo::runtime::device::present());
  if (mo.gpu && !ordo::runtime::device::present())
    throw usage_error("--backend gpu: this build or machine has no GPU (a GPU preset build on a machine with a device)");
  ordo::app::check_output_path("--markdown", markdown);

  std::FILE* log = stderr;
  const auto model = ordo::app::step("generating the synthetic model", [&] {
    // A progress line on a terminal only (a log gets the summary line below).
    uint64_t last = 0;
    const bool tty = ::isatty(::fileno(log));
    return ordo::bench::synthetic_model::build(
        mo, [&](std::size_t done, std::size_t count, uint64_t bytes, uint64_t total, const std::string&) {
          if (!tty || (bytes - last < (total >> 6) && done != count)) return;
          last = bytes;
          std::fprintf(log, "\rweights: %zu/%zu tensors, %.1f of %.1f GB%s", done, count, double(bytes) / 1e9,
                       double(total) / 1e9, done == count ? "\n" : "");
          std::fflush(log);
        });
  });
  std::fprintf(log, "weights: %.2f GB (%s) in %.1f s on the %s\n", double(model->bytes().total) / 1e9, mo.layout.c_str(),
               model->build_seconds(), model->on_gpu() ? "gpu" : "cpu");
  const ordo::bench::bench_report r = ordo::app::step("benchmark", [&] { return ordo::bench::run_decode_bench(*model, bo, log); });
  ordo::bench::print_report(r, mo, stdout);
  if (!markdown.empty()) {
    std::FILE* f = std::fopen(markdown.c_str(), "w");
    if (!f) throw std::runtime_error("--markdown " + markdown + ": cannot write");
    ordo::bench::print_report(r, mo, f);
    std::fclose(f);
  }
  return 0;
}

}  // namespace

ORDO_SUBCOMMAND(bench, "time decode, prefill and verify on a synthetic DS4 model generated in place (--synthetic full)", run_bench);
