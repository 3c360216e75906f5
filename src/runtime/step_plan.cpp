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

/// The moe layout whose routed gate/up, routed down and shared formats are these (layout.hpp names
/// each by its routed formats), read off the compiled entries; throws naming the block's tensors.
std::string moe_layout(const weight_view& gate, const weight_view& down, const weight_view& shared) {
  const std::string g = format_name(gate.format), d = format_name(down.format), s = format_name(shared.format);
  std::string known;
  for (const auto& e : registry::table<ops::moe::op>) {
    if (e.info.gate_up == g && e.info.down == d && e.info.shared == s) return std::string(e.info.layout);
    if (known.find(std::string(e.info.layout) + " ") == std::string::npos) known += std::string(e.info.layout) + " ";
  }
  throw std::out_of_range("no moe layout runs " + gate.name + " (" + g + "), " + down.name + " (" + d + ") and " +
                          shared.name + " (" + s + ") in this build (tune preset " + tune::preset::name +
                          "; layouts: " + known + ")");
}

moe_calls resolve_moe(const block_weights& b, int tier, std::string_view order) {
  using r = model::ds4_role;
  auto need = [&](r role) -> const weight_view& {
    const weight_view* w = b.find(role);
    if (!w) throw std::invalid_argument("block " + std::to_string(b.layer) + " has routed experts but no " +
                                        std::string(model::ds4_role_of(role).ds4_name) + " tensor");
    return *w;
  };
  moe_calls c;
  c.gate = &need(r::ffn_gate_exps);
  c.up = &need(r::ffn_up_exps);
  c.down_w = &need(r::ffn_down_exps);
  c.shared_gate = &need(r::ffn_gate_shexp);
  c.shared_up = &need(r::ffn_up_shexp);
  c.shared_down = &need(r::ffn_down_shexp);
  // A layout has one format for routed gate and up and one for the three shared matrices.
  for (auto [a, z] : {std::pair{c.gate, c.up}, std::pair{c.shared_gate, c.shared_up}, std::pair{c.shared_gate, c.shared_down}})
    if (a->format != z->format)
      throw std::invalid_argument(a->name + " is " + format_name(a->format) + " but " + z->name + " is " +
                                  format_name(z->format) + ": no moe layout mixes them");
  const std::string layout = moe_layout(*c.gate, *c.down_w, *c.shared_gate);
  const std::string t = "r" + std::to_string(tier);
  c.gate_up = &registry::find_axes<ops::moe::op>(layout, t, order, "gate_up");
  c.down = &registry::find_axes<ops::moe::op>(layout, t, order, "down");
  // The activations are those of qmv on the same formats (moe's projections are qmv's dots).
  c.quantize_routed = resolve(*c.gate, tier, order).quantize;
  c.quantize_shared = resolve(*c.shared_gate, tier, order).quantize;
  const auto& qd = resolve(*c.down_w, tier, order).quantize->info;
  const auto& qs = resolve(*c.shared_down, tier, order).quantize->info;
  const std::size_t n_ff = c.down_w->cols;
  auto act_bytes = [&](const auto& q) { return n_ff / std::size_t(q.block_elems) * std::size_t(q.block_bytes); };
  c.mid_act_row_bytes = std::max(act_bytes(qd), act_bytes(qs));
  return c;
}

block_plan plan_block(const block_weights& b, int tier, std::string_view order) {
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
  }
  if (b.find(r::ffn_gate_exps) || b.find(r::ffn_up_exps) || b.find(r::ffn_down_exps)) p.moe = resolve_moe(b, tier, order);
  return p;
}

std::string tier_name(int tier) { return "r" + std::to_string(tier); }

// One resolution per family: a port onto the machinery changes only its function.
void resolve_rmsnorm(family_entries& f, int tier, std::string_view order) {
  f.norm_plain = &registry::find_axes<ops::rmsnorm::op>(tier_name(tier), order, "plain", "f32");
  f.norm_weighted = &registry::find_axes<ops::rmsnorm::op>(tier_name(tier), order, "weighted", "f32");
}
void resolve_rope(family_entries& f, int tier) {
  f.rope_forward = &registry::find_axes<ops::rope::op>(tier_name(tier), "forward");
  f.rope_inverse = &registry::find_axes<ops::rope::op>(tier_name(tier), "inverse");
}
void resolve_router(family_entries& f, int tier) {
  f.route_top_k = &registry::find_axes<ops::router::op>(tier_name(tier), "topk");
  f.route_hash = &registry::find_axes<ops::router::op>(tier_name(tier), "hash");
}
void resolve_hc(family_entries& f, int tier) {
  f.hc_split = &registry::find_axes<ops::hc::op>(tier_name(tier), "split");
  f.hc_weighted_sum = &registry::find_axes<ops::hc::op>(tier_name(tier), "weighted_sum");
  f.hc_post = &registry::find_axes<ops::hc::op>(tier_name(tier), "post");
  f.hc_collapse = &registry::find_axes<ops::hc::op>(tier_name(tier), "collapse");
}
void resolve_kv_store(family_entries& f, int tier) {
  f.kv_store = &registry::find_axes<ops::kv_store::op>(tier_name(tier));
}
void resolve_compressor(family_entries& f, int tier, std::string_view order, bool ratio4_layers) {
  using ops::compressor::store_op;
  using ops::compressor::emit_op;
  f.store_ratio4 = &registry::find_axes<store_op>(tier_name(tier), "ratio4");
  f.store_ratio128 = &registry::find_axes<store_op>(tier_name(tier), "ratio128");
  f.emit_ratio4 = &registry::find_axes<emit_op>("ratio4", order, "attn");
  f.emit_ratio128 = &registry::find_axes<emit_op>("ratio128", order, "attn");
  if (ratio4_layers) f.emit_indexer = &registry::find_axes<emit_op>("ratio4", order, "indexer");
}
void resolve_indexer(family_entries& f, int tier) {
  f.indexer = &registry::find_axes<ops::indexer::op>(tier_name(tier), ops::indexer::op::shipped_order::name, "radix");
}
void resolve_attention(family_entries& f, int tier) {
  f.attention = &registry::find_axes<ops::attention::op>(tier_name(tier), "kv64", "general", "split");
}

}  // namespace

step_plan plan_for(const model_weights& w, int tier, std::string_view order) {
  step_plan p;
  p.tier = tier;
  p.order = std::string(order);
  p.head = plan_block(w.globals(), tier, order);
  for (const auto& b : w.layers()) p.layers.push_back(plan_block(b, tier, order));
  if (w.mtp()) p.mtp = plan_block(*w.mtp(), tier, order);
  resolve_rmsnorm(p.families, tier, order);
  resolve_rope(p.families, tier);
  resolve_router(p.families, tier);
  resolve_hc(p.families, tier);
  resolve_kv_store(p.families, tier);
  const bool ratio4_layers = std::any_of(w.layers().begin(), w.layers().end(), [](const block_weights& b) { return b.ratio == 4; });
  resolve_compressor(p.families, tier, order, ratio4_layers);
  resolve_indexer(p.families, tier);
  resolve_attention(p.families, tier);
  return p;
}

std::vector<std::string> step_plan::resolved_specs() const {
  std::vector<std::string> out;
  auto add = [&](const block_plan& b) {
    for (const auto& c : b.qmv)
      if (c) out.emplace_back(c.entry->name.view());
  };
  auto add_moe = [&](const block_plan& b) {
    if (b.moe) out.insert(out.end(), {std::string(b.moe.gate_up->name.view()), std::string(b.moe.down->name.view())});
  };
  add(head);
  for (const auto& l : layers) add(l), add_moe(l);
  if (mtp) add(*mtp), add_moe(*mtp);
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
