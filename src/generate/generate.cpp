#include "generate/generate.hpp"

#include <chrono>
#include <cstdlib>
#include <stdexcept>

#include "chat/chat_template.hpp"
#include "eval/backend.hpp"
#include "eval/eval.hpp"
#include "synth/synth.hpp"
#include "tokenizer/gguf_vocab.hpp"
#include "tokenizer/stream_decoder.hpp"

namespace ordo::generate {

namespace {
using clock_type = std::chrono::steady_clock;
double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}
}  // namespace

std::filesystem::path default_model_path() {
  if (const char* c = std::getenv("ORDO_CACHE"); c && *c) return std::filesystem::path(c) / "tiny-default.gguf";
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home && *home ? home : ".") / ".cache" / "ordo" / "tiny-default.gguf";
}

std::filesystem::path ensure_default_model(const std::function<void(std::string_view)>& log) {
  const auto path = default_model_path();
  if (std::filesystem::exists(path)) return path;
  std::filesystem::create_directories(path.parent_path());
  log("writing the embedded default model (ordo synth --preset tiny --vocab bytes --seed 1) to " + path.string() + "\n");
  synth::options so;
  so.base = synth::preset::tiny;
  so.seed = 1;
  so.vocab = synth::vocab_kind::bytes;
  const auto tmp = path.string() + ".partial";
  so.out = tmp;
  const auto plan = synth::make_plan(so);
  synth::write_file(plan.files.at(0), so.seed);
  std::filesystem::rename(tmp, path);  // never leave a half-written default behind
  return path;
}

stats run(const options& opt, const std::function<void(std::string_view)>& on_text,
          const std::function<void(std::string_view)>& on_log) {
  if (opt.max_tokens < 0) throw std::invalid_argument("--tokens must be >= 0");
  eval::backend_options bo;
  bo.model = opt.model.empty() ? ensure_default_model(on_log) : opt.model;
  const auto tok = tokenizer::load_tokenizer(bo.model);
  const auto ids = chat::render_single_turn(opt.system, opt.prompt, chat::effective_think_mode(opt.think, opt.context)).encode(tok);
  auto backend = eval::make_backend(opt.backend, bo);

  stats st;
  st.prompt_tokens = ids.size();
  auto t0 = clock_type::now();
  std::vector<float> logits;
  for (int32_t id : ids) logits = backend->step(id);
  st.prefill_seconds = seconds_since(t0);

  tokenizer::stream_decoder decoder(tok);
  t0 = clock_type::now();
  for (int i = 0; i < opt.max_tokens && !logits.empty(); ++i) {
    const int32_t next = eval::argmax(logits);  // ties to the lowest id, as `ordo eval --gen`
    if (next == tok.eos_id()) {
      st.stopped_at_eos = true;
      break;
    }
    ++st.generated_tokens;
    on_text(decoder.push(next));
    if (i + 1 < opt.max_tokens) logits = backend->step(next);
  }
  on_text(decoder.flush());
  st.decode_seconds = seconds_since(t0);
  return st;
}

}  // namespace ordo::generate
