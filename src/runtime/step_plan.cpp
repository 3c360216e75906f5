// Resolution of a step's registry entries (include/ordo/runtime/step_plan.hpp).
#include "ordo/runtime/step_plan.hpp"

#include <algorithm>
#include <stdexcept>

#include "ordo/quant/formats.hpp"

namespace ordo::runtime {

bool is_qmv_role(model::ds4_role r) {
  using c = model::ds4_type_class;
  using role = model::ds4_role;
  if (r == role::attn_compressor_ape || r == role::indexer_compressor_ape) return false;  // added, not multiplied
  const c k = model::ds4_role_of(r).type_class;
  return k == c::dense_matmul || k == c::small_matmul;
}

namespace {

std::string format_name(gguf::ggml_type t) {
  const quant::format_info* f = quant::find_format(static_cast<uint32_t>(t));
  if (!f) throw std::out_of_range("ggml type " + gguf::to_string(t) + " has no ordo format (no qmv spec can exist)");
  return std::string(f->name);
}

qmv_call resolve(const weight_view& w, int tier, std::string_view order) {
  qmv_call c;
  c.weight = &w;
  c.entry = &registry::find_axes<ops::qmv::op>(format_name(w.format), "r" + std::to_string(tier), order);
  c.quantize = &registry::find_axes<ops::quantize_rows::op>(c.entry->info.activation);
  // can_run: the reduction must be whole activation blocks (q8_k: 256, q8_32 / act_f32: 32).
  if (w.cols % uint64_t(c.quantize->info.block_elems) != 0)
    throw std::invalid_argument(std::string(c.entry->name.view()) + " cannot run " + w.name + ": k = " +
                                std::to_string(w.cols) + " is not a multiple of its " + std::string(c.quantize->info.activation) +
                                " activation blocks of " + std::to_string(c.quantize->info.block_elems));
  return c;
}

std::string axes(const weight_view& w, int tier, std::string_view order, std::string_view extra) {
  return gguf::to_string(w.format) + " r" + std::to_string(tier) + " " + std::string(order) + (extra.empty() ? "" : " ") +
         std::string(extra);
}

block_plan plan_block(const block_weights& b, int tier, std::string_view order, std::vector<pending_call>& pending) {
  block_plan p;
  p.layer = b.layer;
  p.ratio = b.ratio;
  p.hash = b.hash;
  using r = model::ds4_role;
  for (std::size_t i = 0; i < model::ds4_role_count; ++i) {
    const auto role = static_cast<r>(i);
    const weight_view* w = b.find(role);
    if (!w) continue;
    if (is_qmv_role(role)) p.qmv[i] = resolve(*w, tier, order);
    else if (role == r::ffn_gate_exps || role == r::ffn_up_exps || role == r::ffn_down_exps)
      pending.push_back({"moe", axes(*w, tier, order, "ids"), w->name});
  }
  return p;
}

}  // namespace

step_plan plan_for(const model_weights& w, int tier, std::string_view order) {
  step_plan p;
  p.tier = tier;
  p.order = std::string(order);
  p.head = plan_block(w.globals(), tier, order, p.pending);
  for (const auto& b : w.layers()) p.layers.push_back(plan_block(b, tier, order, p.pending));
  if (w.mtp()) p.mtp = plan_block(*w.mtp(), tier, order, p.pending);
  // The non-matmul families of the step (docs/engine.md): one requirement each per tier, until
  // their registry tables exist. Their spec names are the families' to define.
  const std::string t = "r" + std::to_string(tier) + " " + std::string(order);
  for (const char* f : {"rmsnorm", "rope", "hc", "kv_store", "compressor", "indexer", "attention", "router", "sampling"})
    p.pending.push_back({f, t, "layer_step"});
  return p;
}

std::vector<std::string> step_plan::resolved_specs() const {
  std::vector<std::string> out;
  auto add = [&](const block_plan& b) {
    for (const auto& c : b.qmv)
      if (c) out.emplace_back(c.entry->name.view());
  };
  add(head);
  for (const auto& l : layers) add(l);
  if (mtp) add(*mtp);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void step_plan::require_complete() const {
  if (pending.empty()) return;
  std::string msg = "the step at tier " + std::to_string(tier) + " needs " + std::to_string(pending.size()) +
                    " calls of op families without a registry table in this build:";
  for (std::size_t i = 0; i < pending.size() && i < 12; ++i)
    msg += "\n  " + pending[i].family + " (" + pending[i].axes + ") for " + pending[i].site;
  if (pending.size() > 12) msg += "\n  ... and " + std::to_string(pending.size() - 12) + " more";
  throw std::runtime_error(msg);
}

}  // namespace ordo::runtime
