#include "generate/generate.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <span>
#include <stdexcept>
#include <vector>

#include "chat/chat_template.hpp"
#include "eval/backend.hpp"
#include "eval/backend_selection.hpp"
#include "eval/ordl.hpp"
#include "generate/embedded_model.hpp"
#include "generate/token_dump.hpp"
#include "ordo/model/ds4_hparams.hpp"
#include "ordo/model/ds4_model_view.hpp"
#include "ordo/model/gguf.hpp"
#include "tokenizer/gguf_vocab.hpp"

namespace ordo::generate {

namespace {
using clock_type = std::chrono::steady_clock;
double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
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

std::filesystem::path default_mtp_model_path() {
  return default_model_path().replace_filename("tiny-default-mtp.gguf");
}

namespace {
// Why the file at `path` is not `want` byte for byte, in the most useful words: not a GGUF, not a
// DS4 model (main file only), or other bytes.
std::string cached_copy_problem(const std::filesystem::path& path, std::span<const std::byte> want, bool main_model) {
  std::optional<gguf::file> f;
  try {
    f.emplace(gguf::file::open(path));
  } catch (const std::exception& e) {
    return std::string("not a valid GGUF file (") + e.what() + ")";
  }
  if (main_model) {
    try {
      model::open_ds4(*f, model::ds4_naming::ds4);
    } catch (const std::exception& e) {
      return std::string("not a valid DS4 model (") + e.what() + ")";
    }
  }
  std::ifstream in(path, std::ios::binary);
  std::vector<char> have((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (have.size() != want.size() || std::memcmp(have.data(), want.data(), want.size()) != 0)
    return "not the embedded default model (" + std::to_string(have.size()) + " bytes differing from the embedded " +
           std::to_string(want.size()) + ")";
  return {};
}

// Writes `bytes` as <path>.partial, then renames it, so an interrupted write never leaves a
// file that looks complete.
void write_cached_copy(const std::filesystem::path& path, std::span<const std::byte> bytes) {
  std::filesystem::create_directories(path.parent_path());
  const auto partial = std::filesystem::path(path.string() + ".partial");
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!out.flush()) throw std::runtime_error("cannot write " + partial.string());
  }
  std::filesystem::rename(partial, path);
}
}  // namespace

std::string default_model_problem(const std::filesystem::path& path) {
  return cached_copy_problem(path, embedded_main_model(), true);
}

std::filesystem::path ensure_default_model(const std::function<void(std::string_view)>& note) {
  const auto say = [&](const std::string& s) {
    if (note) note(s);
  };
  const struct {
    std::filesystem::path path;
    std::span<const std::byte> bytes;
    bool main_model;
    const char* what;
  } files[] = {{default_model_path(), embedded_main_model(), true, "default model"},
               {default_mtp_model_path(), embedded_mtp_model(), false, "default model's MTP sidecar"}};
  for (const auto& f : files) {
    if (std::filesystem::exists(f.path)) {
      const std::string problem = cached_copy_problem(f.path, f.bytes, f.main_model);
      if (problem.empty()) continue;
      say("the cached " + std::string(f.what) + " " + f.path.string() + " is unusable: " + problem +
          "; writing it again\n");
    } else {
      say("writing the embedded " + std::string(f.what) + " (the tiny trained DS4 model, models/tiny-ds4) to " +
          f.path.string() + "\n");
    }
    try {
      write_cached_copy(f.path, f.bytes);
    } catch (const std::exception& e) {
      throw std::runtime_error("writing the " + std::string(f.what) + " " + f.path.string() + ": " + e.what());
    }
  }
  return files[0].path;
}

runtime::speculative_decoder* start_speculation(eval::backend& b, const speculation& s, const token_sampler& sampler) {
  if (s.mode == "off") return nullptr;
  runtime::spec_options o;
  o.width = s.width;
  o.margin = s.margin;
  std::string why;
  runtime::speculative_decoder* d =
      b.speculate([&sampler](std::span<const float> z, uint64_t p) { return sampler.choose(z, p); }, o, why);
  if (!d && s.mode == "mtp") throw std::runtime_error("--spec mtp: " + why);
  return d;
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
  bo.mtp_model = opt.model.empty() ? default_mtp_model_path() : opt.mtp_model;
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
  runtime::speculative_decoder* spec = start_speculation(*backend, opt.spec, sampler);

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
                                 {opt.max_tokens, opt.context, st.prompt_tokens, spec}, dev);
  if (spec) st.spec = spec->stats();
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
