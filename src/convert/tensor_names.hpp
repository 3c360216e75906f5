/// Tensor names of DS4 checkpoints and their GGUF (ds4 / llama.cpp deepseek4) names.
///
/// Three spellings of the same checkpoint reach the converter:
///  - upstream (the official DeepSeek V4 release and `save_pretrained` output): `embed.weight`,
///    `layers.3.attn.wq_a.weight` (+ `.scale` for FP8), `layers.3.ffn.experts.7.w1.weight`, `head.weight`;
///  - HF transformers' in-memory state dict: `model.layers.3.self_attn.q_a_proj.weight`,
///    `...self_attn.compressor.indexer.*`, `mlp.gate.tid2eid`, `attn_hc.fn`, fused
///    `mlp.experts.gate_up_proj` [E, 2I, H] and `mlp.experts.down_proj` [E, H, I], `lm_head.weight`;
///  - either of them with a `model.` prefix.
/// The MTP block (`mtp.0.`, which HF does not instantiate) may use either layer spelling too, with
/// its output HC head as upstream `mtp.0.hc_head_fn` or HF-module `mtp.0.hc_head.hc_fn`.
/// `canonical_name` folds all of them into the upstream spelling; the tables below map upstream
/// names to GGUF names and to the class that picks the output type.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ordo::convert {

/// Which output type a tensor gets (ds4-model §8.4): `dense` are the big projections ds4 stores as
/// Q8_0 (--dense), `aux` the ones it stores as F16 (embedding, HC, router, compressor, indexer;
/// --aux), `f32` norms/scales/biases (always F32), `i32` the hash routing table, `routed` the
/// routed experts (--experts).
enum class tensor_class { dense, aux, f32, i32, routed };

std::string_view to_string(tensor_class c);

/// The upstream spelling of `name` (see the header comment); FP8 scales end in `.scale` (HF's
/// `.weight_scale_inv` is folded too). Names it does not know pass through unchanged.
std::string canonical_name(std::string_view name);

/// A non-routed tensor's GGUF name and class. `layer` is -1 for global tensors; MTP tensors
/// (`mtp.0.*` upstream, `mtp.0.*` in ds4's MTP sidecar GGUF) have `mtp` set and layer 0.
struct gguf_target {
  std::string name;
  tensor_class cls;
  int layer = -1;
  bool mtp = false;
};

/// The GGUF target of a canonical non-routed weight name (`layers.L.attn.wq_a.weight`,
/// `embed.weight`, `mtp.0.e_proj.weight`, ...), or nullopt when the name is not one (a scale,
/// an expert, unknown). The MTP block has the layer tensors (same suffixes) plus its own
/// e_proj/h_proj/enorm/hnorm/norm and output HC head.
std::optional<gguf_target> gguf_target_for(std::string_view canonical);

/// Routed expert projections in upstream naming: w1 = gate, w3 = up, w2 = down.
enum class expert_proj { gate, up, down };
/// GGUF name of a layer's stacked routed-expert tensor: blk.L.ffn_{gate,up,down}_exps.weight
/// (mtp.0.ffn_..._exps.weight for the MTP block).
std::string routed_gguf_name(int layer, expert_proj p, bool mtp = false);

/// `layers.L.ffn.experts.E.w{1,2,3}.{weight,scale}` (or `mtp.0.ffn.experts...`) parsed.
struct expert_ref {
  int layer;
  int expert;
  expert_proj proj;
  bool is_scale;
  bool mtp = false;
};
std::optional<expert_ref> parse_expert_name(std::string_view canonical);

/// HF's fused `layers.L.ffn.experts.gate_up_proj` / `down_proj`, or `mtp.0.ffn.experts...`
/// (canonical spelling, so `mlp.` is already `ffn.`).
struct fused_expert_ref {
  int layer;
  bool gate_up;  // false: down_proj
  bool mtp = false;
};
std::optional<fused_expert_ref> parse_fused_expert_name(std::string_view canonical);

/// The FP8 scale companion of a canonical weight name: `X.weight` → `X.scale`; nullopt for
/// names that do not end in `.weight`.
std::optional<std::string> scale_name_for(std::string_view canonical_weight);

/// True for tensors of the MTP block (`mtp.*`), which ds4 ships in a separate GGUF.
bool is_mtp_name(std::string_view canonical);

}  // namespace ordo::convert
