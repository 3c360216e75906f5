// llama_mtp_driver: drives llama.cpp's deepseek4 MTP graph (LLM_GRAPH_TYPE_DECODER_MTP) the way
// its speculative "draft-mtp" path does, and dumps the MTP block's logits at every prompt
// position (ORDL), so the reference's MTP block can be compared with it.
//
// llama.cpp's convention (common/speculative.cpp, "shift the tgt embeddings to the right by one
// position"): the MTP row at position p gets token t_p and the target's final HC state h_{p-1}
// (zeros at p = 0), with RoPE position p; it predicts t_{p+1}. The hidden state comes from the
// target context through the staging API llama_set_embeddings_nextn / llama_get_embeddings_nextn
// (src/llama-ext.h; exported with C++ linkage, so declared here the same way).
//
// Usage: llama_mtp_driver MODEL TOKENS_FILE OUT.ordl   (F32 caches, flash attention off)
#include <ggml-backend.h>
#include <llama.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

LLAMA_API void llama_set_embeddings_nextn(struct llama_context* ctx, bool value, bool masked);
LLAMA_API float* llama_get_embeddings_nextn(struct llama_context* ctx);

namespace {

void quiet(ggml_log_level level, const char* text, void*) {
  if (level == GGML_LOG_LEVEL_ERROR) std::fputs(text, stderr);
}

std::vector<int32_t> read_tokens(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  for (char& c : text)
    if (c == ',') c = ' ';
  std::stringstream words(text);
  std::vector<int32_t> ids;
  long v;
  while (words >> v) ids.push_back(static_cast<int32_t>(v));
  if (ids.empty()) throw std::runtime_error(path + ": no token ids");
  return ids;
}

llama_context_params context_params(uint32_t n) {
  llama_context_params cp = llama_context_default_params();
  cp.n_ctx = (n + 255) / 256 * 256;
  cp.n_batch = cp.n_ubatch = n;
  cp.n_seq_max = 1;
  cp.n_threads = cp.n_threads_batch = 2;
  cp.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_DISABLED;
  cp.type_k = GGML_TYPE_F32;
  cp.type_v = GGML_TYPE_F32;
  cp.no_perf = true;
  return cp;
}

int run(const std::string& model_path, const std::string& tokens_path, const std::string& out_path) {
  llama_log_set(quiet, nullptr);
  ggml_backend_load_all_from_path(ORDO_LLAMA_LIB_DIR);
  llama_backend_init();
  const std::vector<int32_t> ids = read_tokens(tokens_path);
  const auto n = static_cast<int32_t>(ids.size());

  llama_model_params mp = llama_model_default_params();
  mp.load_mtp = true;
  // Plain CPU buffers only: on AMX CPUs the extra (AMX) buffer type takes F16/Q8_0 weights and then
  // refuses deepseek4's non-contiguous matmuls (GGML_ASSERT in the scheduler; issue 7).
  mp.use_extra_bufts = false;
  llama_model* model = llama_model_load_from_file(model_path.c_str(), mp);
  if (!model) throw std::runtime_error("llama.cpp could not load " + model_path);
  if (llama_model_n_layer_nextn(model) != 1) throw std::runtime_error(model_path + ": no MTP block (nextn) found");
  const int32_t n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(model));
  const int32_t n_hidden = llama_model_n_embd_out(model);  // hc_count * n_embd

  llama_context* tgt = llama_init_from_model(model, context_params(n));
  if (!tgt) throw std::runtime_error("cannot create the target context");
  llama_set_embeddings_nextn(tgt, true, /*masked=*/false);
  std::vector<llama_token> tok(ids.begin(), ids.end());
  std::vector<llama_pos> pos(n);
  std::vector<int32_t> n_seq(n, 1);
  std::vector<llama_seq_id> seq0(n, 0);
  std::vector<llama_seq_id*> seq(n);
  std::vector<int8_t> out(n, 1);
  for (int32_t i = 0; i < n; ++i) pos[i] = i, seq[i] = &seq0[i];
  llama_batch b{n, tok.data(), nullptr, pos.data(), n_seq.data(), seq.data(), out.data()};
  if (llama_decode(tgt, b) != 0) throw std::runtime_error("target llama_decode failed");
  const float* h = llama_get_embeddings_nextn(tgt);
  if (!h) throw std::runtime_error("the target context produced no nextn embeddings");

  // Row p: h_{p-1}, zeros at p = 0.
  std::vector<float> embd(static_cast<std::size_t>(n) * n_hidden, 0.0f);
  std::copy(h, h + static_cast<std::size_t>(n - 1) * n_hidden, embd.begin() + n_hidden);

  llama_context_params dp = context_params(n);
  dp.ctx_type = LLAMA_CONTEXT_TYPE_MTP;
  dp.ctx_other = tgt;
  llama_context* dft = llama_init_from_model(model, dp);
  if (!dft) throw std::runtime_error("cannot create the MTP context");
  llama_batch d{n, tok.data(), embd.data(), pos.data(), n_seq.data(), seq.data(), out.data()};
  if (llama_decode(dft, d) != 0) throw std::runtime_error("MTP llama_decode failed");
  std::vector<float> logits;
  for (int32_t i = 0; i < n; ++i) {
    const float* row = llama_get_logits_ith(dft, i);
    if (!row) throw std::runtime_error("no MTP logits for row " + std::to_string(i));
    logits.insert(logits.end(), row, row + n_vocab);
  }
  std::ofstream o(out_path, std::ios::binary);
  const uint32_t header[3] = {1u, static_cast<uint32_t>(n), static_cast<uint32_t>(n_vocab)};
  o.write("ORDL", 4);
  o.write(reinterpret_cast<const char*>(header), sizeof header);
  o.write(reinterpret_cast<const char*>(ids.data()), std::streamsize(ids.size() * 4));
  o.write(reinterpret_cast<const char*>(logits.data()), std::streamsize(logits.size() * 4));
  if (!o) throw std::runtime_error("writing " + out_path + " failed");
  llama_free(dft);
  llama_free(tgt);
  llama_model_free(model);
  std::printf("mtp positions %d vocab %d\n", n, n_vocab);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: llama_mtp_driver MODEL TOKENS_FILE OUT.ordl\n");
    return 2;
  }
  try {
    return run(argv[1], argv[2], argv[3]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "llama_mtp_driver: %s\n", e.what());
    return 1;
  }
}
