// GPU runners of the op families. Every buffer a problem points at travels whole — all `tier`
// rows of it, padding and poisoned rows included — so what the kernel must not touch is checked
// on the device's copy too.
#include "family_gpu_runners.hpp"
#include "device_mirror.hpp"

#include <cstring>
#include <stdexcept>
#include <type_traits>

#include "ordo/gpu/device_api.hpp"
#include "ordo/ops/sampling/kernel.hpp"

namespace ordo::test::gpu_runners {

int device_count() { return gpu::device_count(); }

std::string device_name() {
  const auto info = gpu::query_device(0);
  return info.name + " (" + std::to_string(info.multiprocessors) + " SMs)";
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
