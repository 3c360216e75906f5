// `ordo eval`: runs a prompt through a backend and dumps the logits of every position (ORDL), for
// parity tests against llama.cpp and HF transformers. --backend auto|cpu|gpu|ref
// (eval/backend_selection.hpp), --chunk N the prefill chunk. Logic lives in src/eval.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include "eval/backend.hpp"
#include "eval/eval.hpp"
#include "eval/ordl.hpp"
#include "cli.hpp"
#include "generation_flags.hpp"
#include "subcommand.hpp"
#include "tokenizer/bpe_tokenizer.hpp"
#include "tokenizer/gguf_vocab.hpp"

namespace {

int run_eval(int argc, char** argv) {
  CLI::App app{"evaluate a prompt and dump the logits of every position"};
  ordo::eval::backend_options opt;
  std::string backend = "auto", sims = "on", ids_csv, ids_file, text, out;
  int gen = 0;
  app.add_option("-m,--model", opt.model, "model GGUF")->required()->check(CLI::ExistingFile);
  app.add_option("--mtp", opt.mtp_model, "antirez/ds4 MTP sidecar GGUF (mtp.0.*)")->check(CLI::ExistingFile);
  ordo::app::add_backend_flag(app, backend);
  auto* o_chunk = app.add_option("--chunk", opt.prefill_chunk,
                                 "prefill chunk: prompt rows sharing one weight pass (default: the largest the backend "
                                 "allows; a backend without chunked prefill says it ignores it)")
                      ->check(ordo::app::integer_at_least(1));
  app.add_option("--ref-sims", sims, "reference only: FP8 KV / FP4 indexer / F16 raw-row simulations")
      ->check(CLI::IsMember({"on", "off"}));
  auto* o_ids = app.add_option("--prompt-ids", ids_csv, "prompt token ids, comma separated");
  auto* o_file = app.add_option("--prompt-ids-file", ids_file, "file of prompt token ids (or a --dump-tokens file)")
                     ->check(CLI::ExistingFile);
  auto* o_text = app.add_option("-p,--prompt", text, "prompt text (tokenized with the model's tokenizer, no BOS added)");
  o_ids->excludes(o_file)->excludes(o_text);
  o_file->excludes(o_text);
  app.add_option("--gen", gen, "greedy-generate N more tokens (their logits are dumped too)")->check(ordo::app::integer_at_least(0));
  app.add_option("--dump-logits", out, "write ORDL logits here");
  ordo::generate::speculation spec;
  ordo::app::spec_flags spec_f;
  ordo::app::add_spec_flags(app, spec, spec_f, nullptr);
  if (auto rc = ordo::app::parse(app, argc, argv)) return *rc;
  using ordo::app::usage_error;
  if (!*o_ids && !*o_file && !*o_text) throw usage_error("--prompt-ids, --prompt-ids-file or -p is required");
  ordo::app::check_backend_flag(backend);
  ordo::app::finish_spec_flags(spec, spec_f);
  const ordo::eval::backend_choice choice = ordo::eval::choose_backend(backend);
  if (sims == "off" && choice.name != "ref") throw usage_error("--ref-sims off: only the ref backend has it");
  ordo::app::check_output_path("--dump-logits", out);  // before the pass, not after it
  {
    opt.sims = sims == "on" ? ordo::eval::ref_sims::on : ordo::eval::ref_sims::off;
    std::vector<int32_t> prompt;
    try {
      if (*o_ids) prompt = ordo::eval::parse_token_ids(ids_csv, "--prompt-ids");
      if (*o_file) {
        std::ifstream in(ids_file);
        prompt = ordo::eval::parse_token_ids(std::string(std::istreambuf_iterator<char>(in), {}), ids_file);
      }
    } catch (const std::invalid_argument& e) {
      throw usage_error(e.what());
    }
    if (*o_text)
      prompt = ordo::app::step("reading the tokenizer of " + opt.model.string(), [&] {
        return ordo::tokenizer::load_tokenizer(opt.model).encode(text, ordo::tokenizer::special_tokens::parse);
      });
    auto b = ordo::app::step("loading model " + opt.model.string(), [&] { return ordo::eval::make_backend(choice.name, opt); });
    if (!choice.note.empty()) std::fprintf(stderr, "ordo eval: %s\n", choice.note.c_str());
    if (*o_chunk && !b->chunked_prefill())
      std::fprintf(stderr, "ordo eval: --chunk %zu ignored: the %s backend has no chunked prefill (it feeds the prompt one token at a time)\n",
                   opt.prefill_chunk, std::string(b->name()).c_str());
    // --gen's tokens are greedy (the sampler at temperature 0).
    const ordo::generate::token_sampler greedy(ordo::ops::sampling::settings{});
    ordo::runtime::speculative_decoder* dec = gen > 0 ? ordo::generate::start_speculation(*b, spec, greedy) : nullptr;
    const ordo::eval::ordl d = ordo::app::step("evaluating", [&] { return ordo::eval::evaluate(*b, prompt, gen, dec); });
    if (dec) std::fprintf(stderr, "%s", ordo::runtime::format_spec_stats(dec->stats()).c_str());
    std::printf("positions %zu vocab %u backend %s\n", d.tokens.size(), d.n_vocab, std::string(b->name()).c_str());
    if (gen > 0) {
      std::printf("greedy");
      for (std::size_t i = prompt.size(); i < d.tokens.size(); ++i) std::printf(" %d", d.tokens[i]);
      std::printf("\n");
    }
    if (!out.empty()) ordo::app::step("writing " + out, [&] { ordo::eval::write_ordl(out, d); });
  }
  return 0;
}

}  // namespace

ORDO_SUBCOMMAND(eval, "evaluate a prompt (token ids or text) and dump every position's logits (ORDL)", run_eval);
