#include "eval/backend.hpp"

#include <stdexcept>

#include "eval/engine_backend.hpp"
#include "eval/ref_backend.hpp"

namespace ordo::eval {

// One row per backend compiled into this build: a GPU build (ORDO_BUILD_GPU: its kernels have
// GPU entries) adds the engine on the GPU executor, usable when the driver reports a device.
const std::vector<backend_kind>& built_backends() {
  static const std::vector<backend_kind> table = {
      {"ref", "the double-precision reference, slow", nullptr, &make_ref_backend},
      {"cpu", "the exact CPU executor", nullptr, &make_cpu_backend},
#if defined(ORDO_BUILD_GPU)
      {"gpu", "the exact engine on the GPU, the CPU executor's bits", &gpu_device_present, &make_gpu_backend},
#endif
  };
  return table;
}

std::vector<std::string> backend_names() {
  std::vector<std::string> names;
  for (const auto& k : built_backends()) names.emplace_back(k.name);
  return names;
}

std::vector<float> backend::prefill(std::span<const int32_t> tokens, logits_rows rows) {
  std::vector<float> out;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    std::vector<float> row = step(tokens[i]);
    if (rows == logits_rows::every) out.insert(out.end(), row.begin(), row.end());
    else if (i + 1 == tokens.size()) out = std::move(row);
  }
  return out;
}

std::unique_ptr<backend> make_backend(std::string_view kind, const backend_options& options) {
  for (const auto& k : built_backends())
    if (k.name == kind) return k.make(options);
  std::string known;
  for (const auto& n : backend_names()) known += (known.empty() ? "" : ", ") + n;
  throw std::runtime_error("--backend " + std::string(kind) + ": not available in this build (available: " + known + ")");
}

}  // namespace ordo::eval
