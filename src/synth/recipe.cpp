// The conditioning recipe (docs/synth.md) and the type of every tensor. Why each scale:
// - projections: stddev 1/sqrt(fan_in), so y = W·x keeps the scale of the RMS-normed x;
// - projections that write into the residual (attn_output_b, expert and shared down): an extra
//   1/sqrt(2·n_layer), so 2·n_layer sublayer outputs summed into the HC streams stay O(1);
// - router: 2/sqrt(D), logits of stddev ~2, so the top-k choice has clear margins;
// - LM head: 2/sqrt(D), logits of stddev ~2, so greedy decoding has clear margins too;
// - norms near 1; HC scales in [0.5, 1]; HC comb bias +1 on the diagonal so Sinkhorn starts
//   near the identity and converges in a few of its 20 iterations.
#include <cmath>

#include "synth/recipe.hpp"

namespace ordo::synth {

init_recipe recipe_for(model::ds4_role role, const std::vector<uint64_t>& dims, const model::ds4_hparams& h) {
  using r = model::ds4_role;
  using k = init_recipe::kind;
  const float fan_in = static_cast<float>(dims.at(0));
  const float inv_sqrt_fan_in = 1.0f / std::sqrt(fan_in);
  const float residual = 1.0f / std::sqrt(2.0f * static_cast<float>(h.n_layer + h.n_mtp));
  switch (role) {
    case r::token_embd: return {k::uniform, 1.0f};
    case r::output:
    case r::ffn_gate_inp: return {k::uniform, 2.0f * inv_sqrt_fan_in};
    case r::output_norm:
    case r::attn_norm:
    case r::attn_q_a_norm:
    case r::attn_kv_norm:
    case r::attn_compressor_norm:
    case r::indexer_compressor_norm:
    case r::ffn_norm:
    case r::mtp_enorm:
    case r::mtp_hnorm:
    case r::mtp_norm: return {k::around_one, 0, 0, 0.1f};
    case r::output_hc_scale:
    case r::mtp_hc_head_scale:
    case r::hc_attn_scale:
    case r::hc_ffn_scale: return {k::uniform_in, 0, 0.5f, 1.0f};
    case r::hc_attn_base:
    case r::hc_ffn_base: return {k::hc_base, 0, 0, 0.1f};
    case r::output_hc_base:
    case r::mtp_hc_head_base: return {k::uniform_in, 0, -0.1f, 0.1f};
    case r::attn_sinks: return {k::uniform_in, 0, -0.5f, 0.5f};
    case r::attn_compressor_ape:
    case r::indexer_compressor_ape: return {k::uniform, 0.3f};
    case r::exp_probs_b: return {k::uniform_in, 0, -0.05f, 0.05f};
    case r::ffn_gate_tid2eid: return {k::tid2eid, 0, 0, static_cast<float>(h.n_expert)};  // hi: id range
    case r::attn_output_b:
    case r::ffn_down_exps:
    case r::ffn_down_shexp: return {k::uniform, inv_sqrt_fan_in * residual};
    // e and h halves of the MTP input projection add up: each gets half the variance.
    case r::mtp_e_proj:
    case r::mtp_h_proj: return {k::uniform, inv_sqrt_fan_in / std::sqrt(2.0f)};
    default: return {k::uniform, inv_sqrt_fan_in};  // every other projection
  }
}

gguf::ggml_type type_for(model::ds4_type_class c, gguf::ggml_type dense, gguf::ggml_type experts) {
  using t = gguf::ggml_type;
  const bool float_dense = dense == t::f32 || dense == t::f16 || dense == t::bf16;
  switch (c) {
    case model::ds4_type_class::f32: return t::f32;
    case model::ds4_type_class::i32: return t::i32;
    case model::ds4_type_class::expert: return experts;
    case model::ds4_type_class::dense_matmul: return dense;
    // ds4 ships these as F16 next to Q8_0 projections; a float --dense applies to them too.
    case model::ds4_type_class::small_matmul:
    case model::ds4_type_class::embedding: return float_dense ? dense : t::f16;
  }
  return dense;
}

}  // namespace ordo::synth
