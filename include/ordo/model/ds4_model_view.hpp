/// A resolved DS4 model: the hyperparameters and, for every role of every block, the tensor of
/// an opened GGUF file, checked against the tensor map (present, accepted type, exact shape).
/// `open_ds4` reports every problem of a file at once, one per line, each naming the tensor:
///   blk.7.attn_q_b.weight: type q4_K not accepted (expected q8_0|f16|bf16|f32)
///   blk.2.indexer.proj.weight: missing
///   blk.0.attn_kv.weight: shape [256, 256] (expected [256, 512])
/// It is a template over the file type (anything with `find(key)` for metadata,
/// `find_tensor(name)` returning `const T*` with `name`, `type`, `dims`, and `name()`), so it
/// works on gguf::file and on in-memory fakes in tests.
#pragma once
#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "ordo/model/ds4_hparams.hpp"
#include "ordo/model/ds4_tensor_map.hpp"
#include "ordo/model/gguf_types.hpp"

namespace ordo::model {

/// The tensors of one block (a main layer or the MTP block), indexed by role; null where the
/// role is absent (e.g. the indexer on ratio-128 layers).
template <class Tensor>
struct ds4_block_view {
  uint32_t layer = 0;
  uint32_t ratio = 0;
  bool hash = false;
  std::array<const Tensor*, ds4_role_count> tensors{};
  const Tensor* get(ds4_role r) const { return tensors[static_cast<std::size_t>(r)]; }
};

template <class Tensor>
struct ds4_model_view {
  ds4_hparams hparams;
  ds4_naming naming = ds4_naming::ds4;
  std::array<const Tensor*, ds4_role_count> globals{};
  std::vector<ds4_block_view<Tensor>> layers;     // [n_layer]
  std::optional<ds4_block_view<Tensor>> mtp;      // present when hparams.n_mtp == 1
  const Tensor* get(ds4_role r) const { return globals[static_cast<std::size_t>(r)]; }
};

namespace detail {

inline std::string render_dims(const std::vector<uint64_t>& d) {
  std::string s = "[";
  for (std::size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

// ggml's spelling (q4_K), as inspect and llama.cpp print it.
inline std::string type_name(gguf::ggml_type t) { return gguf::to_string(t); }

/// Checks the tensors of `specs` in `file` and records them into `view`; appends problems.
template <class File, class Tensor>
void resolve_specs(const File& file, const std::vector<ds4_tensor_spec>& specs, const ds4_hparams& h,
                   ds4_model_view<Tensor>& view, std::vector<std::string>& problems) {
  for (const ds4_tensor_spec& s : specs) {
    const Tensor* t = file.find_tensor(s.name);
    if (!t) {
      if (s.required) problems.push_back(s.name + ": missing");
      continue;
    }
    const auto accepted = ds4_accepted_types(s.type_class);
    bool ok_type = false;
    for (auto a : accepted) ok_type |= a == t->type;
    if (!ok_type) {
      std::string list;
      for (auto a : accepted) list += (list.empty() ? "" : "|") + type_name(a);
      problems.push_back(s.name + ": type " + type_name(t->type) + " not accepted (expected " + list + ")");
    }
    const std::vector<uint64_t> dims(t->dims.begin(), t->dims.end());
    if (dims != s.dims)
      problems.push_back(s.name + ": shape " + render_dims(dims) + " (expected " + render_dims(s.dims) + ")");
    const auto idx = static_cast<std::size_t>(s.role);
    if (s.layer == ds4_global) {
      view.globals[idx] = t;
    } else if (static_cast<uint32_t>(s.layer) < h.n_layer) {
      view.layers[s.layer].tensors[idx] = t;
    } else {
      view.mtp->tensors[idx] = t;
    }
  }
}

template <class Tensor>
void check_expert_pairing(const ds4_block_view<Tensor>& b, const std::string& prefix, std::vector<std::string>& problems) {
  const Tensor* gate = b.get(ds4_role::ffn_gate_exps);
  const Tensor* up = b.get(ds4_role::ffn_up_exps);
  if (gate && up && gate->type != up->type)
    problems.push_back(prefix + "ffn_gate_exps.weight and ffn_up_exps.weight: types " + type_name(gate->type) +
                       " and " + type_name(up->type) + " differ (gate and up must share a type)");
}

}  // namespace detail

/// The convention of a main file: llama when it declares an MTP block that exists as
/// `blk.<block_count-1>.nextn.eh_proj.weight`; ds4 otherwise (without MTP the two conventions
/// use the same names, and ds4's rules are the more lenient: optional selection bias).
template <class File>
ds4_naming guess_ds4_naming(const File& f) {
  const gguf::value* blocks = f.find(ds4_key("block_count"));
  const gguf::value* nextn = f.find(ds4_key("nextn_predict_layers"));
  if (!blocks || !nextn || !blocks->is_integer() || !nextn->is_integer() || nextn->to_u64() == 0) return ds4_naming::ds4;
  const uint64_t last = blocks->to_u64() - 1;
  return f.find_tensor("blk." + std::to_string(last) + ".nextn.eh_proj.weight") ? ds4_naming::llama : ds4_naming::ds4;
}

/// Resolves a DS4 model. `main` is the model file; `mtp_file` (ds4 naming only) is antirez/ds4's
/// MTP sidecar, or null. With llama naming the MTP block comes from the main file when
/// `nextn_predict_layers` = 1 and `blk.<n_layer>.nextn.eh_proj.weight` exists (as llama.cpp
/// decides). Throws ds4_error naming the file and listing every problem.
template <class File>
auto open_ds4(const File& main, ds4_naming naming, const File* mtp_file = nullptr) {
  using Tensor = std::remove_cvref_t<decltype(*main.find_tensor(std::string_view{}))>;
  ds4_model_view<Tensor> view;
  view.naming = naming;
  if (naming == ds4_naming::llama && mtp_file)
    throw ds4_error(std::string(mtp_file->name()) + ": llama.cpp naming keeps the MTP block in the main file; no MTP file expected");
  ds4_hparams h = ds4_read_hparams(main, naming, main.name());
  if (naming == ds4_naming::llama && h.n_mtp) {
    // llama.cpp treats a declared MTP block without its projection as absent (all blocks main).
    if (!main.find_tensor("blk." + std::to_string(h.n_layer) + ".nextn.eh_proj.weight"))
      throw ds4_error(std::string(main.name()) + ": nextn_predict_layers = 1 but blk." + std::to_string(h.n_layer) +
                      ".nextn.eh_proj.weight is missing (llama.cpp would run the MTP block as a main layer)");
  }
  if (mtp_file) {
    const gguf::value* arch = mtp_file->find("general.architecture");
    if (!arch || arch->type() != gguf::value_type::string ||
        (arch->as_string() != ds4_mtp_arch && arch->as_string() != ds4_arch))
      throw ds4_error(std::string(mtp_file->name()) + ": general.architecture is " +
                      (arch ? arch->render() : std::string("missing")) + ", expected \"deepseek4_mtp_support\"");
    h.n_mtp = 1;
  }
  view.hparams = h;
  view.layers.resize(h.n_layer);
  for (uint32_t il = 0; il < h.n_layer; ++il) {
    view.layers[il].layer = il;
    view.layers[il].ratio = h.ratio(il);
    view.layers[il].hash = h.is_hash_layer(il);
  }
  if (h.n_mtp) {
    view.mtp.emplace();
    view.mtp->layer = h.n_layer;
  }
  std::vector<std::string> problems;
  detail::resolve_specs(main, ds4_tensor_specs(h, naming, ds4_file_part::main), h, view, problems);
  std::vector<std::string> mtp_problems;
  if (mtp_file) detail::resolve_specs(*mtp_file, ds4_tensor_specs(h, naming, ds4_file_part::mtp_sidecar), h, view, mtp_problems);
  for (uint32_t il = 0; il < h.n_layer; ++il)
    detail::check_expert_pairing(view.layers[il], "blk." + std::to_string(il) + ".", problems);
  if (view.mtp)
    detail::check_expert_pairing(*view.mtp, naming == ds4_naming::llama ? "blk." + std::to_string(h.n_layer) + "." : "mtp.0.",
                                 mtp_file ? mtp_problems : problems);
  if (problems.empty() && mtp_problems.empty()) return view;
  std::string msg;
  auto list = [&](const std::string& file, const std::vector<std::string>& ps) {
    if (ps.empty()) return;
    msg += (msg.empty() ? "" : "\n") + file + ": " + std::to_string(ps.size()) + " problem(s) with the DS4 tensors (" +
           std::string(to_string(naming)) + " naming):";
    const std::size_t shown = std::min<std::size_t>(ps.size(), 40);
    for (std::size_t i = 0; i < shown; ++i) msg += "\n  " + ps[i];
    if (shown < ps.size()) msg += "\n  ... and " + std::to_string(ps.size() - shown) + " more";
  };
  list(std::string(main.name()), problems);
  if (mtp_file) list(std::string(mtp_file->name()), mtp_problems);
  throw ds4_error(msg);
}

/// The types antirez/ds4 itself accepts for a role (its fixed layout, ds4-model.md §2 and §8.4):
/// Q8_0 projections, F16 embedding / compressor / indexer / APE, F16 or F32 HC `fn` and router,
/// F32 vectors, I32 tid2eid; routed experts IQ2_XXS / Q2_K / Q4_K, plus Q8_0 and MXFP4 upstream.
inline std::vector<gguf::ggml_type> ds4_shipped_types(ds4_role role) {
  using t = gguf::ggml_type;
  using r = ds4_role;
  switch (role) {
    case r::output_hc_fn:
    case r::hc_attn_fn:
    case r::hc_ffn_fn:
    case r::ffn_gate_inp:
    case r::mtp_hc_head_fn: return {t::f16, t::f32};
    default: break;
  }
  switch (ds4_role_of(role).type_class) {
    case ds4_type_class::f32: return {t::f32};
    case ds4_type_class::i32: return {t::i32};
    case ds4_type_class::dense_matmul: return {t::q8_0};
    case ds4_type_class::small_matmul:
    case ds4_type_class::embedding: return {t::f16};
    case ds4_type_class::expert: return {t::iq2_xxs, t::q2_k, t::q4_k, t::q8_0, t::mxfp4};
  }
  return {};
}

/// Tensors of a resolved view whose type antirez/ds4 would refuse (empty: the file has ds4's
/// fixed layout). ordo runs the wider ds4_accepted_types; this tells whether ds4 could too.
template <class Tensor>
std::vector<std::string> ds4_layout_mismatches(const ds4_model_view<Tensor>& v) {
  std::vector<std::string> out;
  auto check = [&](const std::array<const Tensor*, ds4_role_count>& ts) {
    for (std::size_t i = 0; i < ds4_role_count; ++i) {
      const Tensor* t = ts[i];
      if (!t) continue;
      const auto ok = ds4_shipped_types(static_cast<ds4_role>(i));
      if (std::find(ok.begin(), ok.end(), t->type) != ok.end()) continue;
      std::string list;
      for (auto a : ok) list += (list.empty() ? "" : "|") + detail::type_name(a);
      out.push_back(t->name + ": type " + detail::type_name(t->type) + " (antirez/ds4 expects " + list + ")");
    }
  };
  check(v.globals);
  for (const auto& l : v.layers) check(l.tensors);
  if (v.mtp) check(v.mtp->tensors);
  return out;
}

}  // namespace ordo::model
