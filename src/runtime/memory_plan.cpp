// The memory plan and the fit check (include/ordo/runtime/memory_plan.hpp).
#include "ordo/runtime/memory_plan.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace ordo::runtime {

weight_types weight_types::layout(std::string_view name) {
  weight_types t;
  if (name == "q2") return t;
  if (name == "q4") return t.gate_up = t.down = gguf::ggml_type::q4_k, t;
  if (name == "mxfp4") return t.gate_up = t.down = gguf::ggml_type::mxfp4, t;
  throw std::invalid_argument("unknown weight layout '" + std::string(name) + "' (known: q2, q4, mxfp4)");
}

namespace {

gguf::ggml_type described_type(const model::ds4_tensor_spec& s, const weight_types& t) {
  using c = model::ds4_type_class;
  switch (s.type_class) {
    case c::f32: return gguf::ggml_type::f32;
    case c::i32: return gguf::ggml_type::i32;
    case c::small_matmul: return t.small;
    case c::dense_matmul: return t.dense;
    case c::embedding: return t.embedding;
    case c::expert: return s.role == model::ds4_role::ffn_down_exps ? t.down : t.gate_up;
  }
  return gguf::ggml_type::f32;
}

const char* group_of(model::ds4_role r) {
  switch (model::ds4_role_of(r).type_class) {
    case model::ds4_type_class::expert: return "routed experts";
    case model::ds4_type_class::dense_matmul: return "dense matmuls (attention, shared expert, LM head, MTP e/h)";
    case model::ds4_type_class::small_matmul: return "small matmuls (HC, router, compressor, indexer)";
    case model::ds4_type_class::embedding: return "token embedding";
    case model::ds4_type_class::i32: return "hash routing (tid2eid)";
    case model::ds4_type_class::f32: return "vectors (norms, HC scale/base, sinks, bias)";
  }
  return "other";
}

}  // namespace

std::vector<weight_entry> weight_entries(const model::ds4_hparams& h, model::ds4_naming naming, const weight_types& t) {
  std::vector<weight_entry> out;
  auto add = [&](const std::vector<model::ds4_tensor_spec>& specs) {
    for (const auto& s : specs) {
      const gguf::ggml_type ty = described_type(s, t);
      out.push_back({s.name, s.role, s.layer, ty, gguf::tensor_nbytes(ty, s.dims)});
    }
  };
  add(model::ds4_tensor_specs(h, naming, model::ds4_file_part::main));
  add(model::ds4_tensor_specs(h, naming, model::ds4_file_part::mtp_sidecar));
  return out;
}

std::vector<weight_entry> weight_entries(const model_weights& w) {
  std::vector<weight_entry> out;
  auto add = [&](const block_weights& b, int layer) {
    for (std::size_t i = 0; i < model::ds4_role_count; ++i)
      if (b.views[i]) out.push_back({b.views[i].name, static_cast<model::ds4_role>(i), layer, b.views[i].format, b.views[i].bytes()});
  };
  add(w.globals(), model::ds4_global);
  for (const auto& l : w.layers()) add(l, static_cast<int>(l.layer));
  if (w.mtp()) add(*w.mtp(), static_cast<int>(w.hparams().n_layer));
  return out;
}

memory_plan plan_memory(const model::ds4_hparams& h, const std::vector<weight_entry>& entries, state_options o,
                        uint32_t tier) {
  memory_plan p;
  p.ctx = o.ctx;
  p.tier = tier;
  o.slack_rows = std::max(o.slack_rows, tier);
  for (const auto& e : entries) {
    p.weights += e.bytes;
    if (e.layer == static_cast<int>(h.n_layer)) p.weights_mtp += e.bytes;
    const std::string g = group_of(e.role);
    auto it = std::find_if(p.groups.begin(), p.groups.end(), [&](const weight_group& x) { return x.name == g; });
    if (it == p.groups.end()) it = p.groups.insert(p.groups.end(), weight_group{g});
    ++it->tensors;
    it->bytes += e.bytes;
  }
  std::sort(p.groups.begin(), p.groups.end(), [](const auto& a, const auto& b) { return a.bytes > b.bytes; });
  p.state = plan_sequence_state(h, o);
  p.state_bytes = p.state.bytes();
  p.workspace = plan_workspace(h, o.ctx, tier, o.alloc);
  p.workspace_bytes = p.workspace.bytes();
  return p;
}

std::string format_bytes(uint64_t b) {
  char buf[64];
  const double d = static_cast<double>(b);
  if (b >= (uint64_t{1} << 30)) std::snprintf(buf, sizeof buf, "%.2f GiB", d / double(uint64_t{1} << 30));
  else if (b >= (uint64_t{1} << 20)) std::snprintf(buf, sizeof buf, "%.1f MiB", d / double(uint64_t{1} << 20));
  else if (b >= 1024) std::snprintf(buf, sizeof buf, "%.1f KiB", d / 1024.0);
  else std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(b));
  return buf;
}

void check_fits(const memory_plan& p, placement where, uint64_t available) {
  if (p.total() <= available) return;
  const char* what = where == placement::host ? "host RAM" : "device memory";
  std::string msg = std::string("does not fit ") + what + ": weights " + format_bytes(p.weights) + " + state " +
                    format_bytes(p.state_bytes) + " + workspace " + format_bytes(p.workspace_bytes) + " = " +
                    format_bytes(p.total()) + " (" + std::to_string(p.total()) + " bytes) > " + format_bytes(available) +
                    " (" + std::to_string(available) + " bytes) available (context " + std::to_string(p.ctx) +
                    ", tier " + std::to_string(p.tier) + ")";
  if (p.weights > available)
    msg += "; the weights alone exceed it: use a smaller quant layout or a machine with more memory";
  else
    msg += "; the weights fit, the state at this context does not: try a smaller context";
  throw memory_error(msg);
}

sequence_allocation allocate_checked(const memory_plan& plan, placement where, uint64_t available) {
  check_fits(plan, where, available);
  return {sequence_state(plan.state), workspace(plan.workspace)};
}

uint64_t host_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), size = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? uint64_t(pages) * uint64_t(size) : 0;
}

}  // namespace ordo::runtime
