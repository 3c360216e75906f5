// `ordo inspect --plan` (src/runtime/plan_report.hpp).
#include "runtime/plan_report.hpp"

#include <algorithm>
#include <exception>
#include <string>

#include "ordo/runtime/memory_plan.hpp"

namespace ordo::runtime {

int print_memory_plan(const std::filesystem::path& file, const plan_report_options& o, std::FILE* out, std::FILE* err) {
  memory_plan p;
  model::ds4_hparams h;
  model::ds4_naming naming;
  try {
    const model_weights w = model_weights::open(file, o.mtp);
    h = w.hparams();
    naming = w.naming();
    state_options so;
    so.ctx = o.ctx ? o.ctx : std::min<uint32_t>(32768, h.context_length);
    p = plan_memory(h, weight_entries(w), so, o.tier);
  } catch (const std::exception& e) {
    std::fprintf(err, "ordo inspect --plan: %s\n", e.what());
    return 1;
  }
  auto line = [&](const char* indent, const std::string& what, uint64_t bytes) {
    std::fprintf(out, "%s%-*s %12s  (%llu bytes)\n", indent, int(60 - std::string(indent).size()), what.c_str(),
                 format_bytes(bytes).c_str(), static_cast<unsigned long long>(bytes));
  };
  std::fprintf(out, "memory plan: %s (%s naming, %u layers, MTP %s)\n", file.string().c_str(),
               std::string(model::to_string(naming)).c_str(), h.n_layer, h.n_mtp ? "yes" : "no");
  std::fprintf(out, "  context %u positions, tier %u\n", p.ctx, p.tier);
  line("  ", "weights", p.weights);
  for (const auto& g : p.groups) line("    ", g.name + " [" + std::to_string(g.tensors) + "]", g.bytes);
  if (p.weights_mtp) line("    ", "of which the MTP block", p.weights_mtp);
  const auto k = p.state.by_kind();
  line("  ", "sequence state", p.state_bytes);
  line("    ", "raw KV rings (f16)", k.raw);
  line("    ", "compressed KV rows (f32)", k.compressed);
  line("    ", "indexer rows (f32)", k.indexer_rows);
  line("    ", "compressor rings (f32 kv + score)", k.compressor);
  if (k.mtp) line("    ", "MTP raw ring", k.mtp);
  line("  ", "workspace", p.workspace_bytes);
  line("  ", "total", p.total());
  int status = 0;
  auto check = [&](placement where, uint64_t avail, const char* what) {
    try {
      check_fits(p, where, avail);
      std::fprintf(out, "  %s %s: fits (%s free after the plan)\n", what, format_bytes(avail).c_str(),
                   format_bytes(avail - p.total()).c_str());
    } catch (const memory_error& e) {
      std::fprintf(out, "  %s: refused: %s\n", what, e.what());
      status = 1;
    }
  };
  if (o.device_bytes) {
    check(placement::device, o.device_bytes, "gpu executor, device memory");
  } else {
    const uint64_t host = o.host_bytes ? o.host_bytes : host_memory_bytes();
    if (host) check(placement::host, host, "cpu executor, host RAM");
  }
  return status;
}

}  // namespace ordo::runtime
