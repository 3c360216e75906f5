/// The DS4 tensor map: every tensor of the model as a role (what it is), its name in both file
/// conventions, its shape from the hyperparameters, when it is present (compressed layers,
/// ratio-4 layers, hash layers, the MTP block) and the ggml types the engine accepts for it.
///
/// Names (ds4-model.md §2, oracles.md §1): main layers are `blk.<L>.<suffix>` in both conventions.
/// The MTP block is `mtp.0.<suffix>` in its own file for antirez/ds4 (architecture
/// `deepseek4_mtp_support`), with separate `e_proj`/`h_proj`, its own `norm` and output HC head;
/// for llama.cpp it is block `blk.<n_layer>.` of the main file with `nextn.eh_proj` = [e_proj |
/// h_proj] fused on the input dim, `nextn.enorm`, `nextn.hnorm`, `nextn.shared_head_norm`, and it
/// reuses the main output HC head. Shapes are GGUF dims, ne0 (the contiguous input dim) first.
#pragma once
#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "ordo/model/ds4_hparams.hpp"
#include "ordo/model/gguf_types.hpp"

namespace ordo::model {

/// Which ggml types a tensor may have. ds4's published files use one type per tensor (comment:
/// the ds4 type); the engine accepts the whole set, as llama.cpp does for matmul weights.
enum class ds4_type_class {
  f32,           // norms, HC scale/base, sinks, selection bias — always F32
  small_matmul,  // HC fn, router, compressor, indexer projections and APE (ds4: F16)
  dense_matmul,  // attention projections, shared expert, LM head (ds4: Q8_0)
  embedding,     // token_embd (ds4: F16)
  expert,        // routed experts (ds4: IQ2_XXS / Q2_K / Q4_K; newer: Q8_0, MXFP4)
  i32,           // tid2eid hash routing table
};

inline std::vector<gguf::ggml_type> ds4_accepted_types(ds4_type_class c) {
  using t = gguf::ggml_type;
  switch (c) {
    case ds4_type_class::f32: return {t::f32};
    case ds4_type_class::small_matmul: return {t::f16, t::bf16, t::f32};
    case ds4_type_class::dense_matmul:
    case ds4_type_class::embedding: return {t::q8_0, t::f16, t::bf16, t::f32};
    case ds4_type_class::expert: return {t::q8_0, t::mxfp4, t::q4_k, t::q2_k, t::iq2_xxs, t::f16, t::bf16, t::f32};
    case ds4_type_class::i32: return {t::i32};
  }
  return {};
}

/// When a tensor exists.
enum class ds4_presence {
  always,
  compressed,   // compress ratio != 0
  indexed,      // compress ratio == 4 (CSA: indexer)
  hash,         // hash-routed layers (il < hash_layer_count)
  routed_bias,  // top-k routed layers: llama.cpp requires it, ds4 treats it as optional
  optional,     // may be absent (the engine then uses a documented fallback)
};

enum class ds4_scope { global, block, mtp };

/// Every tensor of the model. Block roles exist per main layer and in the MTP block.
enum class ds4_role : uint8_t {
  // global
  token_embd, output_norm, output, output_hc_fn, output_hc_base, output_hc_scale,
  // block: hyper-connections and attention
  hc_attn_fn, hc_attn_scale, hc_attn_base, attn_norm, attn_q_a, attn_q_a_norm, attn_q_b, attn_kv,
  attn_kv_norm, attn_sinks, attn_output_a, attn_output_b,
  attn_compressor_ape, attn_compressor_kv, attn_compressor_gate, attn_compressor_norm,
  indexer_attn_q_b, indexer_proj, indexer_compressor_ape, indexer_compressor_kv,
  indexer_compressor_gate, indexer_compressor_norm,
  // block: FFN
  hc_ffn_fn, hc_ffn_scale, hc_ffn_base, ffn_norm, ffn_gate_inp, exp_probs_b, ffn_gate_tid2eid,
  ffn_gate_exps, ffn_up_exps, ffn_down_exps, ffn_gate_shexp, ffn_up_shexp, ffn_down_shexp,
  // MTP only
  mtp_e_proj, mtp_h_proj, mtp_eh_proj, mtp_enorm, mtp_hnorm, mtp_norm, mtp_hc_head_fn,
  mtp_hc_head_base, mtp_hc_head_scale,
  count_
};
inline constexpr std::size_t ds4_role_count = static_cast<std::size_t>(ds4_role::count_);

/// How one role is named, shaped, typed and when it is present.
struct ds4_role_info {
  ds4_role role;
  ds4_scope scope;
  std::string_view ds4_name;    // suffix after "blk.<L>." / "mtp.0." (or the full global name); empty: not in ds4 files
  std::string_view llama_name;  // suffix after "blk.<L>." (or global); empty: not in llama.cpp files
  ds4_type_class type_class;
  ds4_presence presence;
};

inline const std::array<ds4_role_info, ds4_role_count>& ds4_roles() {
  using r = ds4_role;
  using s = ds4_scope;
  using c = ds4_type_class;
  using p = ds4_presence;
  static const std::array<ds4_role_info, ds4_role_count> table = {{
      {r::token_embd, s::global, "token_embd.weight", "token_embd.weight", c::embedding, p::always},
      {r::output_norm, s::global, "output_norm.weight", "output_norm.weight", c::f32, p::always},
      {r::output, s::global, "output.weight", "output.weight", c::dense_matmul, p::always},
      {r::output_hc_fn, s::global, "output_hc_fn.weight", "output_hc_fn.weight", c::small_matmul, p::always},
      {r::output_hc_base, s::global, "output_hc_base.weight", "output_hc_base.weight", c::f32, p::always},
      {r::output_hc_scale, s::global, "output_hc_scale.weight", "output_hc_scale.weight", c::f32, p::always},
      {r::hc_attn_fn, s::block, "hc_attn_fn.weight", "hc_attn_fn.weight", c::small_matmul, p::always},
      {r::hc_attn_scale, s::block, "hc_attn_scale.weight", "hc_attn_scale.weight", c::f32, p::always},
      {r::hc_attn_base, s::block, "hc_attn_base.weight", "hc_attn_base.weight", c::f32, p::always},
      {r::attn_norm, s::block, "attn_norm.weight", "attn_norm.weight", c::f32, p::always},
      {r::attn_q_a, s::block, "attn_q_a.weight", "attn_q_a.weight", c::dense_matmul, p::always},
      {r::attn_q_a_norm, s::block, "attn_q_a_norm.weight", "attn_q_a_norm.weight", c::f32, p::always},
      {r::attn_q_b, s::block, "attn_q_b.weight", "attn_q_b.weight", c::dense_matmul, p::always},
      {r::attn_kv, s::block, "attn_kv.weight", "attn_kv.weight", c::dense_matmul, p::always},
      {r::attn_kv_norm, s::block, "attn_kv_a_norm.weight", "attn_kv_a_norm.weight", c::f32, p::always},
      {r::attn_sinks, s::block, "attn_sinks.weight", "attn_sinks.weight", c::f32, p::always},
      {r::attn_output_a, s::block, "attn_output_a.weight", "attn_output_a.weight", c::dense_matmul, p::always},
      {r::attn_output_b, s::block, "attn_output_b.weight", "attn_output_b.weight", c::dense_matmul, p::always},
      {r::attn_compressor_ape, s::block, "attn_compressor_ape.weight", "attn_compressor_ape.weight", c::small_matmul, p::compressed},
      {r::attn_compressor_kv, s::block, "attn_compressor_kv.weight", "attn_compressor_kv.weight", c::small_matmul, p::compressed},
      {r::attn_compressor_gate, s::block, "attn_compressor_gate.weight", "attn_compressor_gate.weight", c::small_matmul, p::compressed},
      {r::attn_compressor_norm, s::block, "attn_compressor_norm.weight", "attn_compressor_norm.weight", c::f32, p::compressed},
      {r::indexer_attn_q_b, s::block, "indexer.attn_q_b.weight", "indexer.attn_q_b.weight", c::small_matmul, p::indexed},
      {r::indexer_proj, s::block, "indexer.proj.weight", "indexer.proj.weight", c::small_matmul, p::indexed},
      {r::indexer_compressor_ape, s::block, "indexer_compressor_ape.weight", "indexer_compressor_ape.weight", c::small_matmul, p::indexed},
      {r::indexer_compressor_kv, s::block, "indexer_compressor_kv.weight", "indexer_compressor_kv.weight", c::small_matmul, p::indexed},
      {r::indexer_compressor_gate, s::block, "indexer_compressor_gate.weight", "indexer_compressor_gate.weight", c::small_matmul, p::indexed},
      {r::indexer_compressor_norm, s::block, "indexer_compressor_norm.weight", "indexer_compressor_norm.weight", c::f32, p::indexed},
      {r::hc_ffn_fn, s::block, "hc_ffn_fn.weight", "hc_ffn_fn.weight", c::small_matmul, p::always},
      {r::hc_ffn_scale, s::block, "hc_ffn_scale.weight", "hc_ffn_scale.weight", c::f32, p::always},
      {r::hc_ffn_base, s::block, "hc_ffn_base.weight", "hc_ffn_base.weight", c::f32, p::always},
      {r::ffn_norm, s::block, "ffn_norm.weight", "ffn_norm.weight", c::f32, p::always},
      {r::ffn_gate_inp, s::block, "ffn_gate_inp.weight", "ffn_gate_inp.weight", c::small_matmul, p::always},
      {r::exp_probs_b, s::block, "exp_probs_b.bias", "exp_probs_b.bias", c::f32, p::routed_bias},
      {r::ffn_gate_tid2eid, s::block, "ffn_gate_tid2eid.weight", "ffn_gate_tid2eid.weight", c::i32, p::hash},
      {r::ffn_gate_exps, s::block, "ffn_gate_exps.weight", "ffn_gate_exps.weight", c::expert, p::always},
      {r::ffn_up_exps, s::block, "ffn_up_exps.weight", "ffn_up_exps.weight", c::expert, p::always},
      {r::ffn_down_exps, s::block, "ffn_down_exps.weight", "ffn_down_exps.weight", c::expert, p::always},
      {r::ffn_gate_shexp, s::block, "ffn_gate_shexp.weight", "ffn_gate_shexp.weight", c::dense_matmul, p::always},
      {r::ffn_up_shexp, s::block, "ffn_up_shexp.weight", "ffn_up_shexp.weight", c::dense_matmul, p::always},
      {r::ffn_down_shexp, s::block, "ffn_down_shexp.weight", "ffn_down_shexp.weight", c::dense_matmul, p::always},
      {r::mtp_e_proj, s::mtp, "e_proj.weight", "", c::dense_matmul, p::always},
      {r::mtp_h_proj, s::mtp, "h_proj.weight", "", c::dense_matmul, p::always},
      {r::mtp_eh_proj, s::mtp, "", "nextn.eh_proj.weight", c::dense_matmul, p::always},
      {r::mtp_enorm, s::mtp, "enorm.weight", "nextn.enorm.weight", c::f32, p::always},
      {r::mtp_hnorm, s::mtp, "hnorm.weight", "nextn.hnorm.weight", c::f32, p::always},
      // llama.cpp falls back to output_norm without it; ordo synth always writes it.
      {r::mtp_norm, s::mtp, "norm.weight", "nextn.shared_head_norm.weight", c::f32, p::optional},
      // ds4 only: llama.cpp's MTP reuses the main output HC head.
      {r::mtp_hc_head_fn, s::mtp, "hc_head_fn.weight", "", c::small_matmul, p::always},
      {r::mtp_hc_head_base, s::mtp, "hc_head_base.weight", "", c::f32, p::always},
      {r::mtp_hc_head_scale, s::mtp, "hc_head_scale.weight", "", c::f32, p::always},
  }};
  return table;
}

inline const ds4_role_info& ds4_role_of(ds4_role r) { return ds4_roles()[static_cast<std::size_t>(r)]; }

/// Where a tensor lives: the main layer `layer`, the MTP block (layer == n_layer), or global (-1).
inline constexpr int ds4_global = -1;

/// One expected tensor of a file.
struct ds4_tensor_spec {
  std::string name;
  ds4_role role;
  int layer;  // ds4_global, a main layer, or hparams.n_layer for the MTP block
  std::vector<uint64_t> dims;  // ne0 first
  ds4_type_class type_class;
  bool required;  // false: may be absent (optional roles, ds4's optional selection bias)
};

/// Which file of a model: the main file (with llama naming it includes the MTP block), or
/// antirez/ds4's MTP sidecar.
enum class ds4_file_part { main, mtp_sidecar };

/// Architecture string of antirez/ds4's MTP sidecar file.
inline constexpr std::string_view ds4_mtp_arch = "deepseek4_mtp_support";

/// The shape of `role` for block `il` (or global / MTP).
inline std::vector<uint64_t> ds4_tensor_dims(const ds4_hparams& h, ds4_role role, uint32_t il) {
  using r = ds4_role;
  const uint64_t D = h.n_embd, V = h.n_vocab, hd = h.head_dim, E = h.n_expert, F = h.n_ff_exp;
  const uint64_t ratio = h.ratio(il);
  const uint64_t coff = ratio == 4 ? 2 : 1;  // ratio-4 compressors overlap two windows
  const uint64_t idx = h.indexer_dim;
  switch (role) {
    case r::token_embd:
    case r::output: return {D, V};
    case r::output_norm: return {D};
    case r::output_hc_fn:
    case r::mtp_hc_head_fn: return {h.hc_dim(), h.hc_count};
    case r::output_hc_base:
    case r::mtp_hc_head_base: return {h.hc_count};
    case r::output_hc_scale:
    case r::mtp_hc_head_scale: return {1};
    case r::hc_attn_fn:
    case r::hc_ffn_fn: return {h.hc_dim(), h.hc_mix()};
    case r::hc_attn_scale:
    case r::hc_ffn_scale: return {3};
    case r::hc_attn_base:
    case r::hc_ffn_base: return {h.hc_mix()};
    case r::attn_norm:
    case r::ffn_norm:
    case r::mtp_enorm:
    case r::mtp_hnorm:
    case r::mtp_norm: return {D};
    case r::attn_q_a: return {D, h.q_lora_rank};
    case r::attn_q_a_norm: return {h.q_lora_rank};
    case r::attn_q_b: return {h.q_lora_rank, h.q_dim()};
    case r::attn_kv: return {D, hd};
    case r::attn_kv_norm: return {hd};
    case r::attn_sinks: return {h.n_head};
    // The file stores wo_a 2-D: each group's rows are (n_head/groups)·head_dim wide.
    case r::attn_output_a: return {h.q_dim() / h.o_groups, uint64_t{h.o_groups} * h.o_lora_rank};
    case r::attn_output_b: return {uint64_t{h.o_groups} * h.o_lora_rank, D};
    case r::attn_compressor_ape: return {coff * hd, ratio};
    case r::attn_compressor_kv:
    case r::attn_compressor_gate: return {D, coff * hd};
    case r::attn_compressor_norm: return {hd};
    case r::indexer_attn_q_b: return {h.q_lora_rank, uint64_t{h.indexer_heads} * idx};
    case r::indexer_proj: return {D, h.indexer_heads};
    case r::indexer_compressor_ape: return {2 * idx, ratio};
    case r::indexer_compressor_kv:
    case r::indexer_compressor_gate: return {D, 2 * idx};
    case r::indexer_compressor_norm: return {idx};
    case r::ffn_gate_inp: return {D, E};
    case r::exp_probs_b: return {E};
    case r::ffn_gate_tid2eid: return {h.n_expert_used, V};
    case r::ffn_gate_exps:
    case r::ffn_up_exps: return {D, F, E};
    case r::ffn_down_exps: return {F, D, E};
    case r::ffn_gate_shexp:
    case r::ffn_up_shexp: return {D, F * h.n_expert_shared};
    case r::ffn_down_shexp: return {F * h.n_expert_shared, D};
    case r::mtp_e_proj:
    case r::mtp_h_proj: return {D, D};
    case r::mtp_eh_proj: return {2 * D, D};
    case r::count_: break;
  }
  return {};
}

/// Every tensor a file of `part` must (or may) hold, in a stable order: globals, then each
/// block's tensors in ds4_roles() order, then the MTP block. Hash layers never get a selection
/// bias (llama.cpp rejects one); routed layers always list one (required for llama naming).
inline std::vector<ds4_tensor_spec> ds4_tensor_specs(const ds4_hparams& h, ds4_naming naming,
                                                     ds4_file_part part = ds4_file_part::main) {
  std::vector<ds4_tensor_spec> out;
  const bool llama = naming == ds4_naming::llama;
  auto name_of = [&](const ds4_role_info& ri) { return llama ? ri.llama_name : ri.ds4_name; };
  auto add_block = [&](uint32_t il, bool mtp) {
    const std::string prefix = mtp && !llama ? "mtp.0." : "blk." + std::to_string(il) + ".";
    for (const ds4_role_info& ri : ds4_roles()) {
      if (ri.scope == ds4_scope::global || (ri.scope == ds4_scope::mtp && !mtp)) continue;
      const std::string_view suffix = name_of(ri);
      if (suffix.empty()) continue;
      const uint32_t ratio = h.ratio(il);
      const bool hash = !mtp && h.is_hash_layer(il);
      bool present = true, required = true;
      switch (ri.presence) {
        case ds4_presence::always: break;
        case ds4_presence::compressed: present = ratio != 0; break;
        case ds4_presence::indexed: present = ratio == 4; break;
        case ds4_presence::hash: present = hash; break;
        case ds4_presence::routed_bias: present = !hash; required = llama || mtp; break;
        case ds4_presence::optional: required = false; break;
      }
      if (!present) continue;
      out.push_back({prefix + std::string(suffix), ri.role, static_cast<int>(il), ds4_tensor_dims(h, ri.role, il),
                     ri.type_class, required});
    }
  };
  if (part == ds4_file_part::main) {
    for (const ds4_role_info& ri : ds4_roles())
      if (ri.scope == ds4_scope::global)
        out.push_back({std::string(name_of(ri)), ri.role, ds4_global, ds4_tensor_dims(h, ri.role, 0), ri.type_class, true});
    for (uint32_t il = 0; il < h.n_layer; ++il) add_block(il, false);
    if (llama && h.n_mtp) add_block(h.n_layer, true);
  } else if (!llama && h.n_mtp) {
    add_block(h.n_layer, true);
  }
  return out;
}

}  // namespace ordo::model
