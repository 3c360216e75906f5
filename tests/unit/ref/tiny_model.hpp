/// A tiny random DS4-shaped model for the reference's unit tests: every layer kind (ratio 0, 4,
/// 128), a hash layer, the indexer with a small top-k, and an MTP block. Values are Gaussian with
/// a per-tensor scale chosen so activations stay O(1).
#pragma once
#include <cmath>
#include <random>

#include "ordo/ref/ref.hpp"

namespace ordo::ref::testing {

struct rng {
  std::mt19937_64 gen;
  explicit rng(std::uint64_t seed) : gen(seed) {}
  mat gauss(int r, int c, double scale) {
    std::normal_distribution<double> d(0.0, scale);
    mat m(r, c);
    for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = d(gen);
    return m;
  }
  vec gvec(int n, double scale, double mean = 0.0) {
    std::normal_distribution<double> d(mean, scale);
    vec v(n);
    for (auto& x : v) x = d(gen);
    return v;
  }
  // A projection [out, in] with unit-variance outputs for unit-variance inputs.
  mat proj(int out, int in) { return gauss(out, in, 1.0 / std::sqrt(static_cast<double>(in))); }
};

inline config tiny_config() {
  config c;
  c.n_layer = 4;
  c.n_embd = 64;
  c.n_vocab = 97;
  c.n_head = 4;
  c.head_dim = 96;  // 32 rope-free + 64 rope dims
  c.n_rot = 64;
  c.q_lora_rank = 32;
  c.o_groups = 2;
  c.o_lora_rank = 16;
  c.sliding_window = 8;
  c.compress_ratios = {0, 4, 128, 4};  // [n_layer]; the MTP block is window-only (ratio 0)
  c.indexer_heads = 4;
  c.indexer_dim = 64;
  c.indexer_top_k = 3;
  c.n_expert = 8;
  c.n_expert_used = 3;
  c.n_ff_exp = 32;
  c.hash_layer_count = 1;
  c.swiglu_clamp_exp = {10, 10, 10, 10};  // [n_layer]; the MTP block uses the last layer's
  return c;
}

inline compressor_weights random_compressor(rng& r, const config& c, int ratio, int d) {
  const int coff = ratio == 4 ? 2 : 1;
  return {.wkv = r.proj(coff * d, c.n_embd), .wgate = r.proj(coff * d, c.n_embd),
          .ape = r.gauss(ratio, coff * d, 0.5), .norm = r.gvec(d, 0.1, 1.0)};
}

inline layer_weights random_layer(rng& r, const config& c, int layer, int ratio) {
  layer_weights w;
  const int hcd = c.hc_count * c.n_embd;
  auto hc = [&] { return hc_weights{r.gauss(c.hc_mix(), hcd, 0.02), r.gvec(3, 0.3, 1.0), r.gvec(c.hc_mix(), 0.5)}; };
  w.hc_attn = hc();
  w.attn_norm = r.gvec(c.n_embd, 0.1, 1.0);
  w.q_a = r.proj(c.q_lora_rank, c.n_embd);
  w.q_a_norm = r.gvec(c.q_lora_rank, 0.1, 1.0);
  w.q_b = r.proj(c.n_head * c.head_dim, c.q_lora_rank);
  w.kv = r.proj(c.head_dim, c.n_embd);
  w.kv_norm = r.gvec(c.head_dim, 0.1, 1.0);
  w.sinks = r.gvec(c.n_head, 1.0);
  w.out_a = r.proj(c.o_groups * c.o_lora_rank, c.heads_per_group() * c.head_dim);
  w.out_b = r.proj(c.n_embd, c.o_groups * c.o_lora_rank);
  if (ratio != 0) w.compressor = random_compressor(r, c, ratio, c.head_dim);
  if (ratio == 4) {
    w.indexer.q_b = r.proj(c.indexer_heads * c.indexer_dim, c.q_lora_rank);
    w.indexer.proj = r.proj(c.indexer_heads, c.n_embd);
    w.indexer.compressor = random_compressor(r, c, 4, c.indexer_dim);
  }
  w.hc_ffn = hc();
  w.ffn_norm = r.gvec(c.n_embd, 0.1, 1.0);
  w.router = r.proj(c.n_expert, c.n_embd);
  if (layer < static_cast<int>(c.hash_layer_count)) {
    std::uniform_int_distribution<int> e(0, c.n_expert - 1);
    w.tid2eid.resize(c.n_vocab);
    for (auto& row : w.tid2eid) {
      // distinct experts per token, as the checkpoint's table has
      std::vector<int> all(c.n_expert);
      for (int i = 0; i < c.n_expert; ++i) all[i] = i;
      std::shuffle(all.begin(), all.end(), r.gen);
      row.assign(all.begin(), all.begin() + c.n_expert_used);
    }
  } else {
    w.router_bias = r.gvec(c.n_expert, 0.1);
  }
  for (int e = 0; e < c.n_expert; ++e)
    w.experts.push_back({r.proj(c.n_ff_exp, c.n_embd), r.proj(c.n_ff_exp, c.n_embd), r.proj(c.n_embd, c.n_ff_exp)});
  w.shared = {r.proj(c.n_ff_exp, c.n_embd), r.proj(c.n_ff_exp, c.n_embd), r.proj(c.n_embd, c.n_ff_exp)};
  return w;
}

inline model_weights random_model(const config& c, std::uint64_t seed, bool with_mtp = true) {
  rng r(seed);
  model_weights m;
  m.token_embd = r.gauss(c.n_vocab, c.n_embd, 1.0);
  for (int il = 0; il < static_cast<int>(c.n_layer); ++il) m.layers.push_back(random_layer(r, c, il, c.ratio(il)));
  m.hc_head = {r.gauss(c.hc_count, c.hc_count * c.n_embd, 0.02), r.gvec(1, 0.3, 1.0), r.gvec(c.hc_count, 0.5)};
  m.output_norm = r.gvec(c.n_embd, 0.1, 1.0);
  m.output = r.proj(c.n_vocab, c.n_embd);
  if (with_mtp) {
    mtp_weights t;
    t.e_proj = r.proj(c.n_embd, c.n_embd);
    t.h_proj = r.proj(c.n_embd, c.n_embd);
    t.enorm = r.gvec(c.n_embd, 0.1, 1.0);
    t.hnorm = r.gvec(c.n_embd, 0.1, 1.0);
    t.block = random_layer(r, c, c.n_layer, 0);
    t.hc_head = {r.gauss(c.hc_count, c.hc_count * c.n_embd, 0.02), r.gvec(1, 0.3, 1.0), r.gvec(c.hc_count, 0.5)};
    t.norm = r.gvec(c.n_embd, 0.1, 1.0);
    m.mtp.push_back(std::move(t));
  }
  return m;
}

}  // namespace ordo::ref::testing
