// GPU runners of the op families. Every buffer a problem points at travels whole — all `tier`
// rows of it, padding and poisoned rows included — so what the kernel must not touch is checked
// on the device's copy too.
#include "family_gpu_runners.hpp"
#include "device_mirror.hpp"

#include <cstring>
#include <stdexcept>
#include <type_traits>

#include "ordo/gpu/device_api.hpp"
#include "ordo/ops/attention/kernel.hpp"
#include "ordo/ops/indexer/kernel.hpp"

namespace ordo::test::gpu_runners {

int device_count() { return gpu::device_count(); }

std::string device_name() {
  const auto info = gpu::query_device(0);
  return info.name + " (" + std::to_string(info.multiprocessors) + " SMs)";
}

void attention(const ops::attention::cpu_entry& e, const ops::attention::problem& p) {
  const std::size_t rows = std::size_t(e.tier);
  mirror<const float> q(p.q, rows * p.q_stride), kv(p.kv, std::size_t(p.n_kv) * p.kv_stride), sinks(p.sinks, std::size_t(p.n_heads));
  // The harness's gather buffer has one entry past the last row; its workspace one guard float.
  mirror<const std::int32_t> gather(p.gather, rows * p.gather_stride + 1), n_listed(p.n_listed, rows);
  mirror<float> out(p.out, rows * p.out_stride), workspace(p.workspace, e.workspace(p) + 1);
  auto d = p;
  d.q = q.get(), d.kv = kv.get(), d.sinks = sinks.get(), d.gather = gather.get(), d.n_listed = n_listed.get();
  d.out = out.get(), d.workspace = workspace.get();
  launcher_of(ops::attention::cpu_entries(), e, ops::attention::gpu_launcher_table())(d, nullptr);
  gpu::synchronize();
  out.back();
  workspace.back();
}

void indexer(const ops::indexer::cpu_entry& e, const ops::indexer::problem& p) {
  const std::size_t rows = std::size_t(e.tier), width = std::size_t(p.n_heads) * std::size_t(p.head_dim);
  mirror<const float> q(p.q, rows * p.q_stride), w(p.head_weights, rows * p.w_stride), keys(p.keys, std::size_t(p.n_keys) * p.key_stride);
  mirror<const std::int32_t> n_visible(p.n_visible, rows);
  mirror<std::int32_t> selected(p.selected, rows * p.sel_stride), n_selected(p.n_selected, rows);
  mirror<float> scores(p.scores, rows * p.score_stride), q_fp4(p.q_fp4, rows * width);
  // The harness's survivor workspace has one guard entry past the last row.
  mirror<std::int32_t> survivors(p.survivors, rows * p.survivor_stride + 1);
  auto d = p;
  d.q = q.get(), d.head_weights = w.get(), d.keys = keys.get(), d.n_visible = n_visible.get();
  d.selected = selected.get(), d.n_selected = n_selected.get(), d.scores = scores.get(), d.q_fp4 = q_fp4.get();
  d.survivors = survivors.get();
  launcher_of(ops::indexer::cpu_entries(), e, ops::indexer::gpu_launcher_table())(d, nullptr);
  gpu::synchronize();
  selected.back();
  n_selected.back();
  scores.back();
  survivors.back();
}

}  // namespace ordo::test::gpu_runners
