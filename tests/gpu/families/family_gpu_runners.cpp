// GPU runners of the op families. Every buffer a problem points at travels whole — all `tier`
// rows of it, padding and poisoned rows included — so what the kernel must not touch is checked
// on the device's copy too.
#include "family_gpu_runners.hpp"
#include "device_mirror.hpp"

#include <cstring>
#include <stdexcept>
#include <type_traits>

#include "ordo/gpu/device_api.hpp"
#include "ordo/ops/rmsnorm/kernel.hpp"
#include "ordo/ops/rope/kernel.hpp"
#include "ordo/ops/router/kernel.hpp"
#include "ordo/ops/sampling/kernel.hpp"

namespace ordo::test::gpu_runners {

int device_count() { return gpu::device_count(); }

std::string device_name() {
  const auto info = gpu::query_device(0);
  return info.name + " (" + std::to_string(info.multiprocessors) + " SMs)";
}

void rmsnorm(const ops::rmsnorm::cpu_entry& e, const ops::rmsnorm::problem& p) {
  const std::size_t rows = std::size_t(e.tier);
  mirror<const float> x(p.x, rows * p.x_stride), w(p.weight, std::size_t(p.head_dim));
  mirror<float> out(p.out, rows * p.out_stride);
  mirror<std::byte> q8(p.q8, p.q8 ? rows * p.q8_row_bytes : 0);
  auto q = p;
  q.x = x.get(), q.weight = w.get(), q.out = out.get(), q.q8 = q8.get();
  launcher_of(ops::rmsnorm::cpu_entries(), e, ops::rmsnorm::gpu_launcher_table())(q, nullptr);
  gpu::synchronize();
  out.back();
  q8.back();
}

void rope(const ops::rope::cpu_entry& e, const ops::rope::problem& p) {
  const std::size_t rows = std::size_t(e.tier);
  mirror<float> x(p.x, rows * p.x_stride);
  mirror<const float> t(p.cos_sin, rows * p.table_stride);
  auto q = p;
  q.x = x.get(), q.cos_sin = t.get();
  launcher_of(ops::rope::cpu_entries(), e, ops::rope::gpu_launcher_table())(q, nullptr);
  gpu::synchronize();
  x.back();
}

void router(const ops::router::cpu_entry& e, const ops::router::problem& p) {
  const std::size_t rows = std::size_t(e.tier);
  mirror<const float> logits(p.logits, rows * p.logit_stride), bias(p.bias, std::size_t(p.n_expert));
  mirror<const std::int32_t> table(p.tid2eid, std::size_t(p.n_tokens) * std::size_t(p.n_used)), tokens(p.tokens, rows);
  mirror<std::int32_t> experts(p.experts, rows * p.out_stride);
  mirror<float> weights(p.weights, rows * p.out_stride);
  auto q = p;
  q.logits = logits.get(), q.bias = bias.get(), q.tid2eid = table.get(), q.tokens = tokens.get();
  q.experts = experts.get(), q.weights = weights.get();
  launcher_of(ops::router::cpu_entries(), e, ops::router::gpu_launcher_table())(q, nullptr);
  gpu::synchronize();
  experts.back();
  weights.back();
}

void sampling(const ops::sampling::cpu_entry& e, const ops::sampling::problem& p) {
  const std::size_t rows = std::size_t(e.tier);
  mirror<const float> logits(p.logits, rows * p.logit_stride);
  mirror<const std::uint64_t> positions(p.positions, rows);
  mirror<std::int32_t> tokens(p.tokens, rows + 1);  // the harness's sentinel after the last row travels too
  auto q = p;
  q.logits = logits.get(), q.positions = positions.get(), q.tokens = tokens.get();
  launcher_of(ops::sampling::cpu_entries(), e, ops::sampling::gpu_launcher_table())(q, nullptr);
  gpu::synchronize();
  tokens.back();
}

}  // namespace ordo::test::gpu_runners
