// llama_driver: runs llama.cpp's deepseek4 (the prebuilt CPU oracle, oracles.md §1) on a GGUF and
// dumps the logits of every evaluated position in the ORDL format, so parity tests can compare
// ordo's logits with an implementation nobody here wrote.
//
// ORDL file (little-endian): "ORDL", u32 version = 1, u32 n_pos, u32 n_vocab,
// i32 tokens[n_pos], f32 logits[n_pos][n_vocab]; row i holds the logits after feeding tokens[i].
//
// With --load-mtp --mtp-out it also runs llama.cpp's MTP block on every position (a second ORDL).
//
// Settings are the tightest llama.cpp offers (F32 KV cache, flash attention off) because only
// those agree with a float64 reference to ~1e-5; anything looser is a smoke test.
//
// Weights go to plain CPU buffers only (use_extra_bufts = false, issue 7): on AMX CPUs the
// prebuilt libraries pick libggml-cpu-sapphirerapids.so, whose AMX buffer type takes F16/Q8_0
// weights at load time and then refuses deepseek4's matmul against a permuted input
// (GGML_ASSERT(*cur_backend_id != -1)); the repack buffer types would also make the oracle's
// numbers depend on the CPU. The driver checks the buffers llama.cpp reports after loading and
// fails if any is not a plain CPU buffer; --report-buffers prints them.
#include <CLI/CLI.hpp>
#include <ggml-backend.h>
#include <llama.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

// llama.cpp's staging MTP API (src/llama-ext.h in its source; exported with C++ linkage by the
// prebuilt libllama, not declared in llama.h). Declared here with the library's signatures.
void llama_set_embeddings_nextn(llama_context* ctx, bool value, bool masked);
float* llama_get_embeddings_nextn_ith(llama_context* ctx, int32_t i);

namespace {

enum class feed_mode { batch, token };

struct options {
  std::string model;
  std::string lib_dir = ORDO_LLAMA_LIB_DIR;
  std::string tokens_csv;
  std::string tokens_file;
  std::string out;
  std::string mtp_out;
  feed_mode mode = feed_mode::batch;
  int greedy = 0;
  // One thread by default: ggml's worker threads spin at barriers, and on a loaded 2-core CI
  // machine two of them made token-by-token runs ~15x slower (measured 20 s vs 1.4 s).
  int threads = 1;
  bool load_mtp = false;
  bool extra_bufts = false;  // llama.cpp's default is true; see the header comment
  bool report_buffers = false;
  bool verbose = false;
};

bool g_verbose = false;
// Names of the model buffers llama.cpp announces while loading ("load_tensors: <name> model
// buffer size = ..."), in order. The log is the only place the public API exposes them.
std::vector<std::string> g_model_buffers;

void record_model_buffer(const char* text) {
  static constexpr std::string_view marker = " model buffer size";
  const std::string_view line(text);
  const auto at = line.find(marker);
  if (at == std::string_view::npos) return;
  const auto colon = line.rfind(':', at);
  std::string_view name = line.substr(colon == std::string_view::npos ? 0 : colon + 1, at - (colon + 1));
  while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
  g_model_buffers.emplace_back(name);
}

void log_filter(ggml_log_level level, const char* text, void*) {
  record_model_buffer(text);
  if (g_verbose || level == GGML_LOG_LEVEL_ERROR || level == GGML_LOG_LEVEL_WARN) std::fputs(text, stderr);
}

// Plain host memory: the CPU backend's own buffer type ("CPU") or the mmapped file ("CPU_Mapped").
bool plain_cpu_buffer(const std::string& name) { return name == "CPU" || name == "CPU_Mapped"; }

std::vector<int32_t> parse_tokens(const std::string& text, const std::string& what) {
  std::vector<int32_t> ids;
  std::string item;
  std::stringstream in(text);
  while (std::getline(in, item, ',')) {
    std::stringstream words(item);
    std::string word;
    while (words >> word) {
      try {
        std::size_t used = 0;
        const long v = std::stol(word, &used);
        if (used != word.size() || v < 0 || v > INT32_MAX) throw std::invalid_argument(word);
        ids.push_back(static_cast<int32_t>(v));
      } catch (const std::exception&) {
        throw std::runtime_error(what + ": '" + word + "' is not a token id");
      }
    }
  }
  return ids;
}

int32_t argmax(const float* row, int32_t n) {
  int32_t best = 0;
  for (int32_t i = 1; i < n; ++i)
    if (row[i] > row[best]) best = i;  // ties keep the lowest id
  return best;
}

struct llama_run {
  llama_model* model = nullptr;
  llama_context* ctx = nullptr;
  ~llama_run() {
    if (ctx) llama_free(ctx);
    if (model) llama_model_free(model);
  }
};

// Feeds `ids` starting at position `pos0` and appends one logits row per id to `logits`.
// Feeds `ids` starting at position `pos0` and appends one logits row per id to `logits`; with
// `hidden`, also the MTP input row (the HC state before the output head) of every position.
void feed(llama_run& run, const std::vector<int32_t>& ids, int32_t pos0, feed_mode mode, int32_t n_vocab,
          std::vector<float>& logits, std::vector<float>* hidden = nullptr, int32_t n_hidden = 0) {
  const int32_t chunk = mode == feed_mode::batch ? static_cast<int32_t>(ids.size()) : 1;
  for (int32_t start = 0; start < static_cast<int32_t>(ids.size()); start += chunk) {
    const int32_t n = std::min<int32_t>(chunk, static_cast<int32_t>(ids.size()) - start);
    llama_batch batch = llama_batch_init(n, 0, 1);
    for (int32_t i = 0; i < n; ++i) {
      batch.token[i] = ids[start + i];
      batch.pos[i] = pos0 + start + i;
      batch.n_seq_id[i] = 1;
      batch.seq_id[i][0] = 0;
      batch.logits[i] = 1;
    }
    batch.n_tokens = n;
    const int32_t rc = llama_decode(run.ctx, batch);
    llama_batch_free(batch);
    if (rc != 0) throw std::runtime_error("llama_decode failed with status " + std::to_string(rc));
    for (int32_t i = 0; i < n; ++i) {
      const float* row = llama_get_logits_ith(run.ctx, i);
      if (!row) throw std::runtime_error("llama_get_logits_ith returned no logits");
      logits.insert(logits.end(), row, row + n_vocab);
      if (hidden) {
        const float* h = llama_get_embeddings_nextn_ith(run.ctx, i);
        if (!h) throw std::runtime_error("llama.cpp returned no MTP hidden state for position " + std::to_string(pos0 + start + i));
        hidden->insert(hidden->end(), h, h + n_hidden);
      }
    }
  }
}

// llama.cpp's MTP convention (common/speculative.cpp): the MTP row at position k takes the
// token t_k and the main model's hidden state of position k-1 (zeros at k = 0) and predicts
// t_{k+1}, so its logits row k is comparable with the main model's row k.
std::vector<float> mtp_logits(llama_model* model, llama_context* main_ctx, const llama_context_params& cp_main,
                              const std::vector<int32_t>& tokens, const std::vector<float>& hidden, int32_t n_hidden,
                              int32_t n_vocab) {
  llama_context_params cp = cp_main;
  cp.ctx_type = LLAMA_CONTEXT_TYPE_MTP;
  cp.ctx_other = main_ctx;
  cp.n_batch = cp.n_ubatch = std::max<uint32_t>(static_cast<uint32_t>(tokens.size()), 1);
  llama_run mtp;
  mtp.ctx = llama_init_from_model(model, cp);
  if (!mtp.ctx) throw std::runtime_error("llama.cpp could not create the MTP context");
  const int32_t n = static_cast<int32_t>(tokens.size());
  std::vector<llama_token> tok(tokens.begin(), tokens.end());
  std::vector<float> embd(std::size_t(n) * n_hidden, 0.0f);
  for (int32_t k = 1; k < n; ++k)
    std::copy_n(hidden.begin() + std::size_t(k - 1) * n_hidden, n_hidden, embd.begin() + std::size_t(k) * n_hidden);
  std::vector<llama_pos> pos(n);
  std::vector<int32_t> n_seq(n, 1);
  std::vector<llama_seq_id> seq0(n, 0);
  std::vector<llama_seq_id*> seq(n);
  std::vector<int8_t> want(n, 1);
  for (int32_t k = 0; k < n; ++k) {
    pos[k] = k;
    seq[k] = &seq0[k];
  }
  llama_batch batch{};
  batch.n_tokens = n;
  batch.token = tok.data();
  batch.embd = embd.data();
  batch.pos = pos.data();
  batch.n_seq_id = n_seq.data();
  batch.seq_id = seq.data();
  batch.logits = want.data();
  const int32_t rc = llama_decode(mtp.ctx, batch);
  if (rc != 0) throw std::runtime_error("llama_decode of the MTP batch failed with status " + std::to_string(rc));
  std::vector<float> out;
  for (int32_t k = 0; k < n; ++k) {
    const float* row = llama_get_logits_ith(mtp.ctx, k);
    if (!row) throw std::runtime_error("no MTP logits for position " + std::to_string(k));
    out.insert(out.end(), row, row + n_vocab);
  }
  mtp.model = nullptr;  // owned by the main run
  return out;
}

void write_ordl(const std::string& path, const std::vector<int32_t>& tokens, int32_t n_vocab,
                const std::vector<float>& logits) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw std::runtime_error("cannot open " + path + " for writing");
  const uint32_t header[3] = {1u, static_cast<uint32_t>(tokens.size()), static_cast<uint32_t>(n_vocab)};
  out.write("ORDL", 4);
  out.write(reinterpret_cast<const char*>(header), sizeof header);
  out.write(reinterpret_cast<const char*>(tokens.data()), std::streamsize(tokens.size() * sizeof(int32_t)));
  out.write(reinterpret_cast<const char*>(logits.data()), std::streamsize(logits.size() * sizeof(float)));
  if (!out) throw std::runtime_error("writing " + path + " failed");
}

int run(const options& opt) {
  g_verbose = opt.verbose;
  llama_log_set(log_filter, nullptr);
  ggml_backend_load_all_from_path(opt.lib_dir.c_str());
  llama_backend_init();

  std::vector<int32_t> prompt = parse_tokens(opt.tokens_csv, "--tokens");
  if (!opt.tokens_file.empty()) {
    std::ifstream in(opt.tokens_file);
    if (!in) throw std::runtime_error("cannot read --tokens-file " + opt.tokens_file);
    std::stringstream text;
    text << in.rdbuf();
    const auto more = parse_tokens(text.str(), opt.tokens_file);
    prompt.insert(prompt.end(), more.begin(), more.end());
  }
  if (prompt.empty()) throw std::runtime_error("no tokens given (--tokens or --tokens-file)");

  llama_run run;
  llama_model_params mp = llama_model_default_params();
  mp.load_mtp = opt.load_mtp;
  mp.use_extra_bufts = false;                       // plain CPU buffers (see the header comment)
  if (opt.extra_bufts) mp.use_extra_bufts = true;  // --extra-bufts on: reproduces the AMX abort
  g_model_buffers.clear();
  run.model = llama_model_load_from_file(opt.model.c_str(), mp);
  if (!run.model) throw std::runtime_error("llama.cpp could not load " + opt.model + " (rerun with --verbose)");
  if (opt.report_buffers) {
    std::printf("model buffers");
    for (const auto& b : g_model_buffers) std::printf(" %s", b.c_str());
    std::printf("\n");
  }
  if (g_model_buffers.empty()) throw std::runtime_error("llama.cpp announced no model buffer while loading " + opt.model);
  if (!opt.extra_bufts)
    for (const auto& b : g_model_buffers)
      if (!plain_cpu_buffer(b))
        throw std::runtime_error("model buffer '" + b + "' is not a plain CPU buffer although extra buffer types are off");
  if (opt.load_mtp && llama_model_n_layer_nextn(run.model) != 1)
    throw std::runtime_error(opt.model + ": --load-mtp given but llama.cpp found " +
                             std::to_string(llama_model_n_layer_nextn(run.model)) + " MTP blocks (expected 1)");

  const int32_t n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(run.model));
  for (int32_t id : prompt)
    if (id >= n_vocab)
      throw std::runtime_error("token id " + std::to_string(id) + " >= vocab size " + std::to_string(n_vocab));

  const uint32_t n_total = static_cast<uint32_t>(prompt.size() + opt.greedy);
  llama_context_params cp = llama_context_default_params();
  cp.n_ctx = std::max<uint32_t>(256, (n_total + 255) / 256 * 256);
  cp.n_batch = cp.n_ubatch = std::max<uint32_t>(static_cast<uint32_t>(prompt.size()), 1);
  cp.n_seq_max = 1;
  cp.n_threads = cp.n_threads_batch = opt.threads;
  cp.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_DISABLED;
  cp.type_k = GGML_TYPE_F32;
  cp.type_v = GGML_TYPE_F32;
  cp.no_perf = true;
  run.ctx = llama_init_from_model(run.model, cp);
  if (!run.ctx) throw std::runtime_error("llama.cpp could not create a context for " + opt.model);

  const bool want_mtp = !opt.mtp_out.empty();
  if (want_mtp && !opt.load_mtp) throw std::runtime_error("--mtp-out needs --load-mtp");
  // The MTP input is the whole HC state: 4 streams (llama.cpp accepts only hyper_connection.count 4).
  const int32_t n_hidden = want_mtp ? llama_model_n_embd(run.model) * 4 : 0;
  if (want_mtp) llama_set_embeddings_nextn(run.ctx, true, false);
  std::vector<float>* hidden_rows = nullptr;
  std::vector<float> hidden;
  if (want_mtp) hidden_rows = &hidden;

  std::vector<int32_t> tokens = prompt;
  std::vector<float> logits;
  feed(run, prompt, 0, opt.mode, n_vocab, logits, hidden_rows, n_hidden);
  // Greedy continuation: each generated token is fed back, so its logits row exists too.
  for (int g = 0; g < opt.greedy; ++g) {
    const int32_t next = argmax(logits.data() + (tokens.size() - 1) * n_vocab, n_vocab);
    feed(run, {next}, static_cast<int32_t>(tokens.size()), feed_mode::token, n_vocab, logits, hidden_rows, n_hidden);
    tokens.push_back(next);
  }
  if (want_mtp) {
    const auto m = mtp_logits(run.model, run.ctx, cp, tokens, hidden, n_hidden, n_vocab);
    std::size_t bad = 0;
    for (float v : m) bad += !std::isfinite(v);
    std::printf("mtp positions %zu non_finite %zu\n", tokens.size(), bad);
    write_ordl(opt.mtp_out, tokens, n_vocab, m);
    if (bad) return 3;
  }

  std::size_t non_finite = 0;
  for (float v : logits) non_finite += !std::isfinite(v);
  std::printf("positions %zu vocab %d non_finite %zu\n", tokens.size(), n_vocab, non_finite);
  if (opt.greedy > 0) {
    std::printf("greedy");
    for (std::size_t i = prompt.size(); i < tokens.size(); ++i) std::printf(" %d", tokens[i]);
    std::printf("\n");
  }
  if (!opt.out.empty()) write_ordl(opt.out, tokens, n_vocab, logits);
  return non_finite == 0 ? 0 : 3;
}

}  // namespace

int main(int argc, char** argv) {
  options opt;
  CLI::App app{"Evaluate token ids with llama.cpp's deepseek4 and dump logits (ORDL format)"};
  app.add_option("-m,--model", opt.model, "GGUF file")->required();
  app.add_option("--lib-dir", opt.lib_dir, "folder of the prebuilt llama.cpp/ggml libraries");
  app.add_option("-t,--tokens", opt.tokens_csv, "token ids, comma or space separated");
  app.add_option("--tokens-file", opt.tokens_file, "file of token ids, comma or space separated");
  app.add_option("-o,--out", opt.out, "write the logits of every position here (ORDL)");
  app.add_option("--mode", opt.mode, "feed the prompt as one batch or token by token")
      ->transform(CLI::CheckedTransformer(std::map<std::string, feed_mode>{{"batch", feed_mode::batch},
                                                                          {"token", feed_mode::token}}));
  app.add_option("--greedy", opt.greedy, "greedy continuation: generate and feed back N tokens")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--threads", opt.threads, "CPU threads")->check(CLI::PositiveNumber);
  app.add_flag("--load-mtp", opt.load_mtp, "load the MTP block (blk.<n>.nextn.*) and require it");
  app.add_option("--mtp-out", opt.mtp_out,
                 "with --load-mtp: also run llama.cpp's MTP block on every position and write its logits (ORDL; "
                 "row k: token k with the main hidden state of k-1, predicting token k+1)");
  app.add_option("--extra-bufts", opt.extra_bufts,
                 "let llama.cpp put weights in the CPU's extra buffer types (AMX, repack): on|off (default off; "
                 "on AMX CPUs 'on' aborts in deepseek4's graph)")
      ->transform(CLI::CheckedTransformer(std::map<std::string, bool>{{"on", true}, {"off", false}}));
  app.add_flag("--report-buffers", opt.report_buffers, "print the model buffers llama.cpp allocated (one line)");
  app.add_flag("-v,--verbose", opt.verbose, "show llama.cpp's log");
  CLI11_PARSE(app, argc, argv);
  try {
    return run(opt);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "llama_driver: error: %s\n", e.what());
    return 1;
  }
}
