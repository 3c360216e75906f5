/// Model weights for the double-precision reference, dequantized. Every matrix is [out, in]
/// (row r is the weight row producing output r, i.e. GGUF ne1 rows of ne0 values), so a
/// projection is `W * x`. Loaders fill these from a GGUF through the tensor map; unit tests
/// fill them by hand.
#pragma once
#include <Eigen/Dense>
#include <cstdint>
#include <vector>

namespace ordo::ref {

using vec = Eigen::VectorXd;
using mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// A sublayer's hyper-connection mixer: fn [hc_mix, hc_count*n_embd], scale [3], base [hc_mix].
struct hc_weights {
  mat fn;
  vec scale;
  vec base;
};

/// The output collapse: fn [hc_count, hc_count*n_embd], scale [1], base [hc_count].
struct hc_head_weights {
  mat fn;
  vec scale;
  vec base;
};

/// A learned pooling compressor (ratio 4: width 2d with overlapping windows; ratio 128: width d).
struct compressor_weights {
  mat wkv;    // [coff*d, n_embd]
  mat wgate;  // [coff*d, n_embd]
  mat ape;    // [ratio, coff*d]: row pos % ratio is added to the scores
  vec norm;   // [d]
};

struct indexer_weights {
  mat q_b;    // [indexer_heads*indexer_dim, q_lora_rank]
  mat proj;   // [indexer_heads, n_embd]
  compressor_weights compressor;  // d = indexer_dim, ratio 4
};

struct expert_weights {
  mat gate;   // [n_ff_exp, n_embd]
  mat up;     // [n_ff_exp, n_embd]
  mat down;   // [n_embd, n_ff_exp]
};

struct layer_weights {
  hc_weights hc_attn;
  vec attn_norm;       // [n_embd]
  mat q_a;             // [q_lora_rank, n_embd]
  vec q_a_norm;        // [q_lora_rank]
  mat q_b;             // [n_head*head_dim, q_lora_rank]
  mat kv;              // [head_dim, n_embd]
  vec kv_norm;         // [head_dim]
  vec sinks;           // [n_head]
  mat out_a;           // [o_groups*o_lora_rank, heads_per_group*head_dim]: group g owns rows g*rank..
  mat out_b;           // [n_embd, o_groups*o_lora_rank]
  compressor_weights compressor;  // ratio != 0
  indexer_weights indexer;        // ratio == 4

  hc_weights hc_ffn;
  vec ffn_norm;        // [n_embd]
  mat router;          // [n_expert, n_embd]
  vec router_bias;     // [n_expert], selection only; empty on hash-routed layers
  std::vector<std::vector<std::int32_t>> tid2eid;  // [n_vocab][n_expert_used], hash layers only
  std::vector<expert_weights> experts;             // [n_expert]
  expert_weights shared;
};

/// The multi-token-prediction block: input mixer, one full decoder layer (ratio 0), own head.
struct mtp_weights {
  mat e_proj;          // [n_embd, n_embd] applied to enorm(embedding)
  mat h_proj;          // [n_embd, n_embd] applied to hnorm(stream)
  vec enorm;
  vec hnorm;
  layer_weights block;
  hc_head_weights hc_head;
  vec norm;            // final norm before the shared LM head
};

struct model_weights {
  mat token_embd;      // [n_vocab, n_embd]
  std::vector<layer_weights> layers;
  hc_head_weights hc_head;
  vec output_norm;     // [n_embd]
  mat output;          // [n_vocab, n_embd]
  std::vector<mtp_weights> mtp;  // empty when the file has no MTP block
};

}  // namespace ordo::ref
