// `ordo generate`: chat-render a prompt, run it through a backend and stream greedy text. Without
// -m it uses the embedded default model (a tiny synthetic DS4, written on first use).
#include <CLI/CLI.hpp>
#include <cstdio>

#include "generate/generate.hpp"
#include "subcommand.hpp"

namespace {

int run_generate(int argc, char** argv) {
  CLI::App app{"generate text greedily from a DS4 GGUF (default: the embedded tiny synthetic model)"};
  ordo::generate::options opt;
  std::string think = "none";
  app.add_option("-m,--model", opt.model, "model GGUF (default: the embedded tiny model, gibberish by design)")
      ->check(CLI::ExistingFile);
  app.add_option("-p,--prompt", opt.prompt, "user prompt")->required();
  app.add_option("-s,--system", opt.system, "system prompt (default: none)");
  app.add_option("-n,--tokens", opt.max_tokens, "tokens to generate (default 32)")->check(CLI::NonNegativeNumber);
  app.add_option("--think", think, "reasoning effort: none, high, max (or an API name: low, medium, xhigh, ...)");
  app.add_option("-c,--ctx", opt.context, "context size; --think max needs >= 393216, else runs as high (default 32768)");
  app.add_option("--backend", opt.backend, "ref: the double-precision reference (the only backend so far)");
  CLI11_PARSE(app, argc, argv);
  const auto mode = ordo::chat::parse_reasoning_effort(think);
  if (!mode) {
    std::fprintf(stderr, "ordo generate: --think '%s' is not a reasoning effort name\n", think.c_str());
    return 2;
  }
  opt.think = *mode;
  const auto st = ordo::generate::run(
      opt,
      [](std::string_view text) {
        std::fwrite(text.data(), 1, text.size(), stdout);
        std::fflush(stdout);
      },
      [](std::string_view note) { std::fwrite(note.data(), 1, note.size(), stderr); });
  std::fprintf(stderr, "\n[prompt %zu tokens in %.2f s, generated %zu tokens in %.2f s (%.1f tok/s)%s]\n",
               st.prompt_tokens, st.prefill_seconds, st.generated_tokens, st.decode_seconds,
               st.decode_seconds > 0 ? double(st.generated_tokens) / st.decode_seconds : 0.0,
               st.stopped_at_eos ? ", stopped at end of sentence" : "");
  return 0;
}

}  // namespace

ORDO_SUBCOMMAND(generate, "generate text greedily (default: the embedded tiny synthetic model)", run_generate);
