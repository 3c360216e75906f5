// `ordo generate`: chat-render a prompt, run it through a backend (--backend, auto by default)
// and stream greedy or sampled text (--temp > 0: the sampler of include/ordo/ops/sampling; the
// same flags and --seed give the same bytes) until -n, a stop string, end of sequence or a full
// context, then the statistics (src/generate/report.hpp). --dump-logits / --dump-tokens write
// what the run computed. Without -m it uses the embedded default model (the tiny trained DS4
// of models/tiny-ds4, written to the cache on first use). Ctrl-C stops generating and still
// prints the text so far and the statistics (exit status 130).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <string>

#include "cli.hpp"
#include "generate/generate.hpp"
#include "generation_flags.hpp"
#include "generate/report.hpp"
#include "status_line.hpp"
#include "subcommand.hpp"

namespace {

using namespace ordo;

int run_generate(int argc, char** argv) {
  CLI::App cli{"generate text from a DS4 GGUF, greedily or sampled (default: the embedded tiny trained model)"};
  generate::options opt;
  std::string think = "none";
  cli.add_option("-m,--model", opt.model, "model GGUF (default: the embedded tiny trained DS4 model, models/tiny-ds4)")
      ->check(CLI::ExistingFile);
  cli.add_option("-p,--prompt", opt.prompt, "user prompt")->required();
  cli.add_option("-s,--system", opt.system, "system prompt (default: none)");
  cli.add_option("-n,--tokens", opt.max_tokens,
                 "tokens to generate; -1: until end of sequence or a full context (default 32)")
      ->check(app::integer_at_least(generate::unlimited_tokens));
  cli.add_option("--think", think, "reasoning effort: none, high, max (or an API name: low, medium, xhigh, ...)");
  cli.add_option("-c,--ctx", opt.context,
                 "context size in tokens: the prompt (chat template included) plus the generated tokens must fit; "
                 "--think max needs >= 393216, else runs as high (default 32768)")
      ->check(app::integer_at_least(1));
  app::add_sampling_flags(cli, opt.sampler);
  app::add_stop_flag(cli, opt.stop);
  app::add_backend_flag(cli, opt.backend);
  app::spec_flags spec;
  app::add_spec_flags(cli, opt.spec, spec, &opt.mtp_model);
  cli.add_option("--dump-logits", opt.dump_logits,
                 "write the logits of every forward step (prompt and decode) here, ORDL (ordo eval's format)");
  cli.add_option("--dump-tokens", opt.dump_tokens,
                 "write the sequence's tokens here (prompt with the chat template, then the generated ones) in "
                 "antirez/ds4's --dump-tokens format");
  if (auto rc = app::parse(cli, argc, argv)) return *rc;
  const auto mode = chat::parse_reasoning_effort(think);
  if (!mode) throw app::usage_error("--think '" + think + "' is not a reasoning effort name");
  opt.think = *mode;
  app::check_backend_flag(opt.backend);
  app::finish_spec_flags(opt.spec, spec);
  app::unescape_stops(opt.stop);
  app::check_output_path("--dump-logits", opt.dump_logits);
  app::check_output_path("--dump-tokens", opt.dump_tokens);

  app::status_line status;
  const std::string model_label =
      opt.model.empty() ? std::string("the default model") : opt.model.filename().string();
  generate::events ev;
  bool wrote_text = false;
  ev.text = [&](std::string_view text) {
    status.clear();
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    wrote_text = true;
  };
  ev.note = [&](std::string_view note) {
    status.clear();
    std::fwrite(note.data(), 1, note.size(), stderr);
  };
  ev.progress = [&](generate::phase p, std::size_t done, std::size_t total) {
    if (p == generate::phase::loading_model) {
      if (done < total) status.start_ticker("loading " + model_label);
      else status.clear();
    } else {
      status.count("prompt", done, total);
    }
  };
  const app::interrupt_guard guard;
  ev.stop_requested = [] { return app::interrupt_signal() != 0; };

  const generate::stats st = generate::run(opt, ev);
  status.clear();
  std::fprintf(stderr, "%s%s", wrote_text ? "\n\n" : "\n", generate::format_stats(st).c_str());
  if (st.spec) std::fprintf(stderr, "%s", runtime::format_spec_stats(*st.spec).c_str());
  return st.stop == generate::stop_reason::interrupted ? 128 + app::interrupt_signal() : 0;
}

}  // namespace

ORDO_SUBCOMMAND(generate, "generate text, greedily or sampled (default: the embedded tiny trained model)", run_generate);
