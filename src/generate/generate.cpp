#include "generate/generate.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <stdexcept>

#include "chat/chat_template.hpp"
#include "eval/backend.hpp"
#include "eval/backend_selection.hpp"
#include "eval/ordl.hpp"
#include "generate/token_dump.hpp"
#include "ordo/model/ds4_hparams.hpp"
#include "ordo/model/ds4_model_view.hpp"
#include "ordo/model/gguf.hpp"
#include "synth/synth.hpp"
#include "tokenizer/gguf_vocab.hpp"

namespace ordo::generate {

namespace {
using clock_type = std::chrono::steady_clock;
double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

synth::options default_model_recipe(const std::filesystem::path& out) {
  synth::options so;
  so.base = synth::preset::tiny;
  so.seed = 1;
  so.vocab = synth::vocab_kind::bytes;
  so.out = out;
  return so;
}

}  // namespace

void check_ds4_architecture(const std::filesystem::path& path) {
  const gguf::file f = gguf::file::open(path);
  const gguf::value* arch = f.find("general.architecture");
  if (!arch || arch->type() != gguf::value_type::string || arch->as_string() != model::ds4_arch)
    throw std::runtime_error("general.architecture is " + (arch ? arch->render() : std::string("missing")) +
                             ", expected \"" + std::string(model::ds4_arch) + "\" (ordo runs DeepSeek V4 Flash only)");
}

std::filesystem::path default_model_path() {
  if (const char* c = std::getenv("ORDO_CACHE"); c && *c) return std::filesystem::path(c) / "tiny-default.gguf";
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home && *home ? home : ".") / ".cache" / "ordo" / "tiny-default.gguf";
}

std::string default_model_problem(const std::filesystem::path& path) {
  std::optional<gguf::file> f;
  try {
    f.emplace(gguf::file::open(path));
  } catch (const std::exception& e) {
    return std::string("not a valid GGUF file (") + e.what() + ")";
  }
  try {
    model::open_ds4(*f, model::ds4_naming::ds4);
  } catch (const std::exception& e) {
    return std::string("not a valid DS4 model (") + e.what() + ")";
  }
  const gguf::value* seed = f->find("ordo.synth.seed");
  const gguf::value* name = f->find("general.name");
  if (!seed || !seed->is_integer() || seed->to_u64() != 1 || !name || name->type() != gguf::value_type::string ||
      name->as_string() != "ordo-synth-tiny")
    return "not the embedded default model (other general.name / ordo.synth.seed)";
  // The recipe regenerates any tensor from (seed, name): compare the first and the last one,
  // which catch a file truncated and re-padded or written by another recipe version.
  const synth::plan plan = synth::make_plan(default_model_recipe(path));
  const auto& planned = plan.files.at(0).tensors;
  if (planned.size() != f->tensors().size()) return "tensor count differs from the recipe";
  for (const synth::planned_tensor* t : {&planned.front(), &planned.back()}) {
    const gguf::tensor_info* have = f->find_tensor(t->spec.name);
    if (!have) return t->spec.name + " is missing";
    const std::vector<std::byte> want = synth::tensor_bytes(*t, 1);
    if (have->nbytes != want.size() || !std::equal(want.begin(), want.end(), have->bytes().begin()))
      return t->spec.name + ": bytes differ from the recipe";
  }
  return {};
}

std::filesystem::path ensure_default_model(const std::function<void(std::string_view)>& note) {
  const auto path = default_model_path();
  const auto say = [&](const std::string& s) {
    if (note) note(s);
  };
  if (std::filesystem::exists(path)) {
    const std::string problem = default_model_problem(path);
    if (problem.empty()) return path;
    say("the cached default model " + path.string() + " is unusable: " + problem + "; writing it again\n");
  } else {
    say("writing the embedded default model (ordo synth --preset tiny --vocab bytes --seed 1) to " + path.string() +
        "\n");
  }
  try {
    std::filesystem::create_directories(path.parent_path());
    const auto plan = synth::make_plan(default_model_recipe(path));
    synth::write_file(plan.files.at(0), 1);  // the writer renames <path>.partial only when complete
  } catch (const std::exception& e) {
    throw std::runtime_error("writing the default model " + path.string() + ": " + e.what());
  }
  return path;
}

stats run(const options& opt, const events& ev) {
  if (opt.max_tokens < unlimited_tokens) throw std::invalid_argument("--tokens must be >= -1");
  if (opt.context == 0) throw std::invalid_argument("--ctx must be >= 1");
  const token_sampler sampler(opt.sampler);
  const eval::backend_choice choice = eval::choose_backend(opt.backend);
  const auto progress = [&](phase p, std::size_t done, std::size_t total) {
    if (ev.progress) ev.progress(p, done, total);
  };
  const auto stop_requested = [&] { return ev.stop_requested && ev.stop_requested(); };

  stats st;
  st.context = opt.context;
  st.max_tokens = opt.max_tokens;
  eval::backend_options bo;
  bo.model = opt.model.empty() ? ensure_default_model(ev.note) : opt.model;
  const std::string model_name = bo.model.string();

  const auto t_load = clock_type::now();
  progress(phase::loading_model, 0, 1);
  const auto fail_loading = [&](const std::exception& e) {
    return std::runtime_error("loading model " + model_name + ": " + e.what());
  };
  std::optional<tokenizer::bpe_tokenizer> tok;
  std::unique_ptr<eval::backend> backend;
  try {
    check_ds4_architecture(bo.model);
    tok.emplace(tokenizer::load_tokenizer(bo.model));
  } catch (const std::exception& e) {
    throw fail_loading(e);
  }
  const auto ids = chat::render_single_turn(opt.system, opt.prompt, chat::effective_think_mode(opt.think, opt.context))
                       .encode(*tok);
  st.prompt_tokens = ids.size();
  // The context holds the prompt and every generated token; one generated token at least.
  if (ids.size() >= opt.context)
    throw std::runtime_error("prompt does not fit the context: it is " + std::to_string(ids.size()) +
                             " tokens (chat template included) and -c " + std::to_string(opt.context) +
                             " leaves room for at most " + std::to_string(opt.context - 1) +
                             " prompt tokens plus one generated token");
  try {
    backend = eval::make_backend(choice.name, bo);
  } catch (const std::exception& e) {
    throw fail_loading(e);
  }
  progress(phase::loading_model, 1, 1);
  st.load_seconds = seconds_since(t_load);
  if (!choice.note.empty() && ev.note) ev.note(choice.note + "\n");  // once it loaded: errors come first

  // --dump-logits keeps every forward step's row; --dump-tokens the sequence. Both are written
  // whatever ends the run (an interrupted run dumps what it computed).
  const bool keep_logits = !opt.dump_logits.empty();
  eval::ordl dump;
  dump.n_vocab = backend->n_vocab();
  std::vector<int32_t> sequence;
  const auto write_dumps = [&] {
    if (keep_logits) eval::write_ordl(opt.dump_logits, dump);
    if (!opt.dump_tokens.empty()) write_token_dump(opt.dump_tokens, *tok, sequence);
  };

  const auto t_prefill = clock_type::now();
  std::vector<float> logits;
  const auto fed = [&](int32_t id, const std::vector<float>& row) {
    sequence.push_back(id);
    if (keep_logits) {
      dump.tokens.push_back(id);
      dump.logits.insert(dump.logits.end(), row.begin(), row.end());
    }
  };
  if (backend->chunked_prefill() && !stop_requested()) {
    // One call: the backend shares weight passes across the chunk's rows.
    std::vector<float> rows = backend->prefill(ids, keep_logits ? eval::logits_rows::every : eval::logits_rows::last);
    const std::size_t n = dump.n_vocab;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      sequence.push_back(ids[i]);
      if (keep_logits) dump.tokens.push_back(ids[i]);
    }
    if (keep_logits) {
      logits.assign(rows.end() - std::ptrdiff_t(n), rows.end());
      dump.logits = std::move(rows);
    } else {
      logits = std::move(rows);
    }
    st.prefilled_tokens = ids.size();
    progress(phase::prefill, ids.size(), ids.size());
  } else {
    for (int32_t id : ids) {
      if (stop_requested()) break;
      logits = backend->step(id);
      fed(id, logits);
      ++st.prefilled_tokens;
      progress(phase::prefill, st.prefilled_tokens, ids.size());
    }
  }
  st.prefill_seconds = seconds_since(t_prefill);
  if (st.prefilled_tokens < ids.size()) {
    st.stop = stop_reason::interrupted;
    write_dumps();
    return st;
  }

  stop_matcher stops(opt.stop);
  decode_events dev;
  dev.text = ev.text;
  dev.stop_requested = stop_requested;
  dev.logits_row = [&](int32_t id, const std::vector<float>& row) {
    if (keep_logits) {
      dump.tokens.push_back(id);
      dump.logits.insert(dump.logits.end(), row.begin(), row.end());
    }
  };
  const decode_result r = decode(*backend, *tok, std::move(logits), sampler, stops,
                                 {opt.max_tokens, opt.context, st.prompt_tokens}, dev);
  sequence.insert(sequence.end(), r.tokens.begin(), r.tokens.end());
  st.generated_tokens = r.tokens.size();
  st.decode_steps = r.steps;
  st.decode_seconds = r.decode_seconds;
  if (r.first_token) st.first_token_seconds = std::chrono::duration<double>(*r.first_token - t_prefill).count();
  st.stop = r.stop;
  st.stop_string = r.stop_string;
  write_dumps();
  return st;
}

}  // namespace ordo::generate
