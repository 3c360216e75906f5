#include "convert/plan.hpp"

#include "ordo/model/ds4_tensor_map.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace ordo::convert {

namespace {

using gguf::ggml_type;
using shape_t = std::vector<std::int64_t>;

std::runtime_error error(const std::string& msg) { return std::runtime_error(msg); }

std::string where(const checkpoint& ck, const st_tensor& t) {
  return fmt::format("{}: tensor '{}'", ck.files()[t.file_index].string(), t.name);
}

bool is_float_dtype(st_dtype d) {
  return d == st_dtype::f32 || d == st_dtype::f16 || d == st_dtype::bf16 || d == st_dtype::f64;
}
bool is_e8m0_dtype(st_dtype d) { return d == st_dtype::f8_e8m0 || d == st_dtype::u8; }

std::vector<std::uint64_t> reversed_dims(const shape_t& s) {
  std::vector<std::uint64_t> d;
  for (auto it = s.rbegin(); it != s.rend(); ++it) d.push_back(static_cast<std::uint64_t>(*it));
  return d;
}

// Torch shape each non-routed upstream name must have under `hp` (ds4-model §2, HF modules).
std::optional<shape_t> expected_shape(std::string_view canonical, const hf_hparams& hp) {
  const std::int64_t H = hp.n_embd, V = hp.n_vocab, hc = hp.hc_mult, mix = (2 + hc) * hc;
  const std::int64_t hd = hp.head_dim, nh = hp.n_head, ql = hp.q_lora_rank;
  const std::int64_t og = hp.o_groups, ol = hp.o_lora_rank, E = hp.n_expert, I = hp.n_ff_exp;
  const std::int64_t ih = hp.index_n_heads, id = hp.index_head_dim;
  if (canonical == "embed.weight" || canonical == "head.weight") return shape_t{V, H};
  if (canonical == "norm.weight") return shape_t{H};
  if (canonical == "hc_head_fn") return shape_t{hc, hc * H};
  if (canonical == "hc_head_base") return shape_t{hc};
  if (canonical == "hc_head_scale") return shape_t{1};
  std::string_view rest;
  std::int64_t ratio = 0;
  if (canonical.starts_with("mtp.0.")) {
    rest = canonical.substr(6);  // the MTP block behaves like a ratio-0 layer
    const std::map<std::string_view, shape_t> mtp_only = {
        {"e_proj.weight", {H, H}}, {"h_proj.weight", {H, H}}, {"enorm.weight", {H}}, {"hnorm.weight", {H}},
        {"norm.weight", {H}}, {"hc_head_fn", {hc, hc * H}}, {"hc_head_base", {hc}}, {"hc_head_scale", {1}}};
    if (const auto it = mtp_only.find(rest); it != mtp_only.end()) return it->second;
  } else if (canonical.starts_with("layers.")) {
    rest = canonical.substr(7);
    const auto dot = rest.find('.');
    const int layer = std::stoi(std::string(rest.substr(0, dot)));
    rest = rest.substr(dot + 1);
    ratio = layer < static_cast<int>(hp.compress_ratios.size()) ? hp.compress_ratios[layer] : 0;
  } else {
    return std::nullopt;
  }
  const std::int64_t coff = ratio == 4 ? 2 : 1;  // ratio-4 compressors carry two overlapping series
  const std::map<std::string_view, shape_t> table = {
      {"hc_attn_fn", {mix, hc * H}}, {"hc_attn_base", {mix}}, {"hc_attn_scale", {3}},
      {"hc_ffn_fn", {mix, hc * H}}, {"hc_ffn_base", {mix}}, {"hc_ffn_scale", {3}},
      {"attn_norm.weight", {H}}, {"ffn_norm.weight", {H}},
      {"attn.wq_a.weight", {ql, H}}, {"attn.q_norm.weight", {ql}}, {"attn.wq_b.weight", {nh * hd, ql}},
      {"attn.wkv.weight", {hd, H}}, {"attn.kv_norm.weight", {hd}}, {"attn.attn_sink", {nh}},
      {"attn.wo_a.weight", {og * ol, nh * hd / og}}, {"attn.wo_b.weight", {H, og * ol}},
      {"attn.compressor.ape", {ratio, coff * hd}}, {"attn.compressor.wkv.weight", {coff * hd, H}},
      {"attn.compressor.wgate.weight", {coff * hd, H}}, {"attn.compressor.norm.weight", {hd}},
      {"attn.indexer.wq_b.weight", {ih * id, ql}}, {"attn.indexer.weights_proj.weight", {ih, H}},
      {"attn.indexer.compressor.ape", {ratio, 2 * id}}, {"attn.indexer.compressor.wkv.weight", {2 * id, H}},
      {"attn.indexer.compressor.wgate.weight", {2 * id, H}}, {"attn.indexer.compressor.norm.weight", {id}},
      {"ffn.gate.weight", {E, H}}, {"ffn.gate.bias", {E}}, {"ffn.gate.tid2eid", {V, hp.n_expert_used}},
      {"ffn.shared_experts.w1.weight", {I * hp.n_expert_shared, H}},
      {"ffn.shared_experts.w3.weight", {I * hp.n_expert_shared, H}},
      {"ffn.shared_experts.w2.weight", {H, I * hp.n_expert_shared}},
  };
  const auto it = table.find(rest);
  if (it == table.end()) return std::nullopt;
  return it->second;
}

// Whether layer tensor `suffix` (upstream, layer-relative) belongs in a layer of this ratio.
bool allowed_in_layer(std::string_view suffix, std::int32_t ratio, bool hash_layer) {
  if (suffix.starts_with("attn.indexer.")) return ratio == 4;
  if (suffix.starts_with("attn.compressor.")) return ratio != 0;
  if (suffix == "ffn.gate.bias") return !hash_layer;  // only top-k selection uses the bias
  if (suffix == "ffn.gate.tid2eid") return hash_layer;
  return true;
}
// The bias is optional on main layers (ds4 treats it so) and required on the MTP block (ds4).
bool required_in_layer(std::string_view suffix, std::int32_t ratio, bool hash_layer, bool mtp) {
  return allowed_in_layer(suffix, ratio, hash_layer) && (mtp || suffix != "ffn.gate.bias");
}

// Upstream layer-relative suffixes of the non-routed tensors, in ds4-model §2.2's order.
constexpr std::string_view kLayerOrder[] = {
    "hc_attn_fn", "hc_attn_scale", "hc_attn_base", "attn_norm.weight", "attn.wq_a.weight",
    "attn.q_norm.weight", "attn.wq_b.weight", "attn.wkv.weight", "attn.kv_norm.weight", "attn.attn_sink",
    "attn.wo_a.weight", "attn.wo_b.weight", "attn.compressor.ape", "attn.compressor.wkv.weight",
    "attn.compressor.wgate.weight", "attn.compressor.norm.weight", "attn.indexer.wq_b.weight",
    "attn.indexer.weights_proj.weight", "attn.indexer.compressor.ape", "attn.indexer.compressor.wkv.weight",
    "attn.indexer.compressor.wgate.weight", "attn.indexer.compressor.norm.weight", "hc_ffn_fn",
    "hc_ffn_scale", "hc_ffn_base", "ffn_norm.weight", "ffn.gate.weight", "ffn.gate.bias",
    "ffn.gate.tid2eid", "ffn.shared_experts.w1.weight", "ffn.shared_experts.w3.weight",
    "ffn.shared_experts.w2.weight",
};
constexpr std::string_view kGlobalOrder[] = {"embed.weight", "hc_head_base", "hc_head_fn",
                                             "hc_head_scale", "norm.weight", "head.weight"};
// The MTP block's own tensors (relative to mtp.0.), before its layer tensors.
constexpr std::string_view kMtpOrder[] = {"hc_head_base", "hc_head_fn", "hc_head_scale", "e_proj.weight",
                                          "h_proj.weight", "enorm.weight", "hnorm.weight", "norm.weight"};
// experts_ key of the MTP block.
constexpr int kMtpKey = -1;

struct expert_sources {
  // [proj][expert] → (weight, scale)
  std::array<std::map<int, std::pair<const st_tensor*, const st_tensor*>>, 3> per_expert;
  const st_tensor* fused_gate_up = nullptr;
  const st_tensor* fused_down = nullptr;
};

class planner {
 public:
  planner(const checkpoint& ck, const hf_hparams& hp, const convert_options& opts)
      : ck_(ck), hp_(hp), opts_(opts) {}

  conversion_plan run() {
    index_sources();
    conversion_plan plan;
    plan.hp = hp_;
    plan.metadata = ds4_metadata(hp_, opts_.model_name);
    std::string vocab_note;
    for (auto& kv : vocab_section(opts_.vocab, ck_.directory(), hp_.n_vocab, vocab_note))
      plan.metadata.push_back(std::move(kv));
    notes_.push_back(std::move(vocab_note));
    for (auto g : kGlobalOrder) plan_plain(plan.tensors, std::string(g), -1, false);
    for (int L = 0; L < static_cast<int>(hp_.n_layer); ++L) plan_block(plan.tensors, fmt::format("layers.{}.", L), L, false);
    if (opts_.mtp) {
      if (!has_mtp_)
        throw error(fmt::format("{}: an MTP file was asked for but the checkpoint has no mtp.0.* tensors",
                                ck_.directory().string()));
      auto mh = to_model_hparams(hp_);
      mh.n_mtp = 1;
      plan.mtp_metadata = model::ds4_metadata(mh, model::ds4_naming::ds4);
      plan.mtp_metadata.front().val = gguf::value::string(std::string(model::ds4_mtp_arch));
      plan.mtp_metadata.insert(plan.mtp_metadata.begin() + 1,
                               {"general.name", gguf::value::string(opts_.model_name + " MTP")});
      for (auto m : kMtpOrder) plan_plain(plan.mtp_tensors, "mtp.0." + std::string(m), 0, true);
      plan_block(plan.mtp_tensors, "mtp.0.", 0, true);
    }
    for (const auto& [canon, t] : by_canon_)
      if (!consumed_.count(canon))
        throw error(fmt::format("{}: not used by the conversion (unexpected for a {}-layer model)", where(ck_, *t),
                                hp_.n_layer));
    if (mtp_skipped_ > 0)
      plan.notes.push_back(fmt::format("skipped {} MTP tensors (mtp.*): ds4 keeps the MTP block in a separate GGUF",
                                       mtp_skipped_));
    for (auto& n : notes_) plan.notes.push_back(std::move(n));
    try {
      model::validate(to_model_hparams(hp_));
    } catch (const model::ds4_error& e) {
      // Still a valid GGUF for llama.cpp; say why ordo itself would refuse it.
      plan.notes.push_back(std::string("the ordo engine will not run this model: ") + e.what());
    }
    return plan;
  }

 private:
  void plan_block(std::vector<planned_tensor>& out, const std::string& prefix, int L, bool mtp) {
    for (auto s : kLayerOrder) {
      plan_plain(out, prefix + std::string(s), L, mtp);
      if (s == "ffn.gate.tid2eid")
        for (auto p : {expert_proj::gate, expert_proj::up, expert_proj::down}) plan_routed(out, L, p, mtp);
    }
  }

  void index_sources() {
    for (const auto& [name, t] : ck_.tensors()) {
      const auto canon = canonical_name(name);
      if (is_mtp_name(canon)) {
        has_mtp_ = true;
        if (!opts_.mtp) {
          ++mtp_skipped_;
          continue;
        }
      }
      if (const auto [it, fresh] = by_canon_.emplace(canon, &t); !fresh)
        throw error(fmt::format("tensors '{}' and '{}' are the same weight ('{}') in two spellings",
                                it->second->name, name, canon));
      if (const auto e = parse_expert_name(canon)) {
        if (!e->mtp) check_layer(e->layer, t);
        auto& slot = experts_[e->mtp ? kMtpKey : e->layer].per_expert[static_cast<int>(e->proj)][e->expert];
        (e->is_scale ? slot.second : slot.first) = &t;
        consumed_.insert(canon);
      } else if (const auto f = parse_fused_expert_name(canon)) {
        if (!f->mtp) check_layer(f->layer, t);
        auto& ex = experts_[f->mtp ? kMtpKey : f->layer];
        (f->gate_up ? ex.fused_gate_up : ex.fused_down) = &t;
        consumed_.insert(canon);
      } else if (!canon.ends_with(".scale") && !gguf_target_for(canon)) {
        throw error(fmt::format("{}: unrecognized tensor name (canonical '{}'); not a DeepSeek V4 weight",
                                where(ck_, t), canon));
      }
    }
  }

  void check_layer(int layer, const st_tensor& t) const {
    if (layer >= static_cast<int>(hp_.n_layer))
      throw error(fmt::format("{}: layer {} but config.json has num_hidden_layers = {}", where(ck_, t), layer,
                              hp_.n_layer));
  }

  const st_tensor* source(const std::string& canon) const {
    const auto it = by_canon_.find(canon);
    return it == by_canon_.end() ? nullptr : it->second;
  }

  ggml_type type_for(tensor_class cls) const {
    switch (cls) {
      case tensor_class::dense: return opts_.dense.value_or(ggml_type::q8_0);
      case tensor_class::aux: return opts_.aux;
      case tensor_class::f32: return ggml_type::f32;
      case tensor_class::i32: return ggml_type::i32;
      case tensor_class::routed: break;
    }
    return opts_.dense.value_or(ggml_type::q8_0);
  }

  void check_block_multiple(const planned_tensor& p, const std::string& src_label) const {
    const std::uint64_t block = (p.type == ggml_type::q8_0 || p.type == ggml_type::mxfp4) ? 32 : 1;
    if (p.dims[0] % block != 0)
      throw error(fmt::format("{} → {}: row length {} is not a multiple of {} as {} requires; choose a float "
                              "type for this class of tensors",
                              src_label, p.name, p.dims[0], block, gguf::to_string(p.type)));
  }

  // A non-FP4 source part for a whole tensor (or rows of it), FP8 scale resolved.
  source_part float_or_fp8_part(const st_tensor& t, const std::string& canon, std::int64_t cols) {
    source_part part;
    part.tensor = &t;
    part.cols = cols;
    part.rows = cols == 0 ? 0 : t.numel() / cols;
    if (t.dtype == st_dtype::f8_e4m3) {
      const auto sname = scale_name_for(canon);
      const st_tensor* s = sname ? source(*sname) : nullptr;
      if (s == nullptr)
        throw error(fmt::format("{}: FP8 weight without its block scale '{}'", where(ck_, t), sname.value_or("?")));
      if (t.shape.size() != 2) throw error(fmt::format("{}: FP8 weights must be 2-D", where(ck_, t)));
      const shape_t want{(t.shape[0] + 127) / 128, (t.shape[1] + 127) / 128};
      if (s->shape != want || !(is_e8m0_dtype(s->dtype) || s->dtype == st_dtype::f32))
        throw error(fmt::format("{}: block scale must be F8_E8M0 (or F32) of shape [{}, {}] for weight [{}, {}], "
                                "got {} {}",
                                where(ck_, *s), want[0], want[1], t.shape[0], t.shape[1], st_dtype_name(s->dtype),
                                fmt::join(s->shape, "x")));
      consumed_.insert(*sname);
      part.scale = s;
      part.kind = source_kind::fp8_blocks;
    } else if (is_float_dtype(t.dtype)) {
      part.kind = source_kind::float_rows;
    } else {
      throw error(fmt::format("{}: dtype {} cannot be converted to a float tensor", where(ck_, t),
                              st_dtype_name(t.dtype)));
    }
    return part;
  }

  // `layer` < 0: a global tensor; `mtp`: a tensor of the MTP block (which runs like a ratio-0,
  // top-k routed layer).
  void plan_plain(std::vector<planned_tensor>& out, const std::string& canon, int layer, bool mtp) {
    auto target = gguf_target_for(canon);
    if (!target) throw std::logic_error("plan_plain: no target for " + canon);
    const bool hash_layer = !mtp && layer >= 0 && layer < static_cast<int>(hp_.n_hash_layers);
    const std::string suffix = layer < 0 ? canon : mtp ? canon.substr(6) : canon.substr(canon.find('.', 7) + 1);
    const std::int32_t ratio = layer < 0 || mtp ? 0 : hp_.compress_ratios[layer];
    const std::string block = mtp ? std::string("the MTP block") : fmt::format("layer {}", layer);
    const st_tensor* t = source(canon);
    std::string src_canon = canon;
    if (t == nullptr && canon == "head.weight" && hp_.tie_word_embeddings) {
      t = source("embed.weight");  // tied LM head: HF does not save it
      src_canon = "embed.weight";
    }
    if (t == nullptr) {
      if (layer < 0 || required_in_layer(suffix, ratio, hash_layer, mtp))
        throw error(fmt::format("{}: checkpoint has no '{}' (needed for GGUF '{}'{})", ck_.directory().string(),
                                canon, target->name,
                                layer < 0 ? "" : fmt::format(", {} has compress ratio {}", block, ratio)));
      return;
    }
    consumed_.insert(canon);
    if (layer >= 0 && !allowed_in_layer(suffix, ratio, hash_layer)) {
      if (suffix == "ffn.gate.bias") {
        // HF and llama.cpp have no selection bias on hash-routed layers (llama.cpp rejects one).
        notes_.push_back(fmt::format("dropped '{}': {} is hash-routed and uses no selection bias", t->name, block));
        return;
      }
      throw error(fmt::format("{}: present, but config.json says {} has compress ratio {}{}", where(ck_, *t), block,
                              ratio, hash_layer ? "" : " and is not hash-routed"));
    }
    if (const auto want = expected_shape(canon, hp_); want && *want != t->shape)
      throw error(fmt::format("{}: shape [{}] but config.json implies [{}]", where(ck_, *t), fmt::join(t->shape, ", "),
                              fmt::join(*want, ", ")));

    planned_tensor p;
    p.name = target->name;
    p.cls = target->cls;
    p.type = type_for(target->cls);
    p.dims = reversed_dims(t->shape);
    const std::int64_t cols = t->shape.empty() ? 1 : t->shape.back();
    if (target->cls == tensor_class::i32) {
      if (t->dtype != st_dtype::i64 && t->dtype != st_dtype::i32)
        throw error(fmt::format("{}: expected an I64 or I32 index table, got {}", where(ck_, *t), st_dtype_name(t->dtype)));
      source_part part{t, nullptr, source_kind::int_table, 0, t->numel() / std::max<std::int64_t>(cols, 1), cols};
      p.parts.push_back(part);
    } else {
      p.parts.push_back(float_or_fp8_part(*t, src_canon, cols));
    }
    if (p.dims.empty()) p.dims = {1};
    check_block_multiple(p, t->name);
    out.push_back(std::move(p));
  }

  void plan_routed(std::vector<planned_tensor>& out, int L, expert_proj proj, bool mtp) {
    const auto& ex = experts_[mtp ? kMtpKey : L];
    const std::string block = mtp ? std::string("the MTP block") : fmt::format("layer {}", L);
    const std::string src_prefix = mtp ? std::string("mtp.0.") : fmt::format("layers.{}.", L);
    const auto& per = ex.per_expert[static_cast<int>(proj)];
    const std::int64_t E = hp_.n_expert, H = hp_.n_embd, I = hp_.n_ff_exp;
    const bool down = proj == expert_proj::down;
    const std::int64_t rows = down ? H : I, cols = down ? I : H;  // per expert, [out, in]
    planned_tensor p;
    p.name = routed_gguf_name(L, proj, mtp);
    p.cls = tensor_class::routed;
    p.dims = {static_cast<std::uint64_t>(cols), static_cast<std::uint64_t>(rows), static_cast<std::uint64_t>(E)};
    const st_tensor* fused = down ? ex.fused_down : ex.fused_gate_up;
    if (fused != nullptr && !per.empty())
      throw error(fmt::format("{}: both fused '{}' and per-expert tensors are present", block, fused->name));
    bool fp4 = false;
    if (fused != nullptr) {
      const shape_t want = down ? shape_t{E, H, I} : shape_t{E, 2 * I, H};
      if (fused->shape != want)
        throw error(fmt::format("{}: shape [{}] but config.json implies [{}]", where(ck_, *fused),
                                fmt::join(fused->shape, ", "), fmt::join(want, ", ")));
      if (!is_float_dtype(fused->dtype))
        throw error(fmt::format("{}: fused experts must be a float dtype, got {}", where(ck_, *fused),
                                st_dtype_name(fused->dtype)));
      for (std::int64_t e = 0; e < E; ++e) {
        // gate_up [E, 2I, H]: expert e's gate rows are [e·2I, e·2I + I), its up rows the next I.
        const std::int64_t first = down ? e * H : e * 2 * I + (proj == expert_proj::up ? I : 0);
        p.parts.push_back(source_part{fused, nullptr, source_kind::float_rows, first, rows, cols});
      }
    } else {
      if (per.empty())
        throw error(fmt::format("{}: checkpoint has no routed experts for {} (expected {}ffn.experts.E.w{}"
                                ".weight or HF's fused mlp.experts tensors)",
                                ck_.directory().string(), block, src_prefix, down ? 2 : proj == expert_proj::up ? 3 : 1));
      for (std::int64_t e = 0; e < E; ++e) {
        const auto it = per.find(static_cast<int>(e));
        if (it == per.end() || it->second.first == nullptr)
          throw error(fmt::format("{}: {} expert {} w{} is missing ({} experts expected)", ck_.directory().string(),
                                  block, e, down ? 2 : proj == expert_proj::up ? 3 : 1, E));
        const st_tensor& w = *it->second.first;
        const st_tensor* s = it->second.second;
        if (w.dtype == st_dtype::i8) {
          // FP4: [out, in/2] bytes + E8M0 [out, in/32] scales.
          fp4 = true;
          if (cols % 32 != 0 || w.shape != shape_t{rows, cols / 2})
            throw error(fmt::format("{}: FP4 expert shape [{}] but config.json implies [{}, {}] (two codes per byte)",
                                    where(ck_, w), fmt::join(w.shape, ", "), rows, cols / 2));
          if (s == nullptr) throw error(fmt::format("{}: FP4 expert without its '.scale' tensor", where(ck_, w)));
          if (!is_e8m0_dtype(s->dtype) || s->shape != shape_t{rows, cols / 32})
            throw error(fmt::format("{}: FP4 scale must be F8_E8M0 [{}, {}], got {} [{}]", where(ck_, *s), rows,
                                    cols / 32, st_dtype_name(s->dtype), fmt::join(s->shape, ", ")));
          p.parts.push_back(source_part{&w, s, source_kind::fp4_packed, 0, rows, cols});
        } else {
          if (w.shape != shape_t{rows, cols})
            throw error(fmt::format("{}: shape [{}] but config.json implies [{}, {}]", where(ck_, w),
                                    fmt::join(w.shape, ", "), rows, cols));
          if (s != nullptr && w.dtype != st_dtype::f8_e4m3)
            throw error(fmt::format("{}: has a scale tensor but dtype {}", where(ck_, w), st_dtype_name(w.dtype)));
          const auto canon = canonical_name(w.name);
          p.parts.push_back(float_or_fp8_part(w, canon, cols));
        }
        if ((p.parts.back().kind == source_kind::fp4_packed) != (p.parts.front().kind == source_kind::fp4_packed))
          throw error(fmt::format("{}: experts mix FP4 and non-FP4 sources", block));
      }
      if (static_cast<std::int64_t>(per.size()) != E)
        throw error(fmt::format("{}: {} has {} experts for w{}, config.json says {}", ck_.directory().string(), block,
                                per.size(), down ? 2 : proj == expert_proj::up ? 3 : 1, E));
    }
    p.type = opts_.experts.value_or(fp4 ? ggml_type::mxfp4 : opts_.dense.value_or(ggml_type::q8_0));
    if (p.type == ggml_type::mxfp4 && !fp4)
      notes_.push_back(fmt::format("{}: MXFP4 quantized from {} values (lossy; only FP4 sources repack losslessly)",
                                   p.name, st_dtype_name(p.parts.front().tensor->dtype)));
    check_block_multiple(p, p.parts.front().tensor->name);
    out.push_back(std::move(p));
  }

  const checkpoint& ck_;
  const hf_hparams& hp_;
  const convert_options& opts_;
  std::map<std::string, const st_tensor*> by_canon_;
  std::set<std::string> consumed_;
  std::map<int, expert_sources> experts_;
  std::vector<std::string> notes_;
  std::size_t mtp_skipped_ = 0;
  bool has_mtp_ = false;
};

}  // namespace

std::int64_t planned_tensor::rows() const {
  std::int64_t n = 0;
  for (const auto& p : parts) n += p.rows;
  return n;
}

std::int64_t planned_tensor::cols() const { return static_cast<std::int64_t>(dims[0]); }

conversion_plan plan_conversion(const checkpoint& ck, const hf_hparams& hp, const convert_options& opts) {
  return planner(ck, hp, opts).run();
}

gguf::ggml_type parse_output_type(const std::string& text, tensor_class cls) {
  const auto t = gguf::parse_ggml_type(text);
  const bool ok = t && (*t == ggml_type::f32 || *t == ggml_type::f16 || *t == ggml_type::bf16 ||
                        (*t == ggml_type::q8_0 && cls != tensor_class::aux) ||
                        (*t == ggml_type::mxfp4 && cls == tensor_class::routed));
  if (!ok) {
    const char* choices = cls == tensor_class::aux      ? "f16, bf16, f32"
                          : cls == tensor_class::routed ? "mxfp4, q8_0, f16, bf16, f32"
                                                        : "q8_0, f16, bf16, f32";
    throw std::runtime_error(fmt::format("output type '{}' is not one of {}", text, choices));
  }
  return *t;
}

}  // namespace ordo::convert
