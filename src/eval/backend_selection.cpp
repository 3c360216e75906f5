#include "eval/backend_selection.hpp"

#include <algorithm>
#include <stdexcept>

namespace ordo::eval {

namespace {

const backend_kind* find_kind(std::string_view name, std::span<const backend_kind> built) {
  for (const auto& k : built)
    if (k.name == name) return &k;
  return nullptr;
}

std::string built_list(std::span<const backend_kind> built) {
  std::string list = "auto";
  for (std::string_view name : backend_choices)
    if (find_kind(name, built)) list += ", " + std::string(name);
  return list;
}

}  // namespace

backend_choice choose_backend(std::string_view requested, std::span<const backend_kind> built) {
  if (std::find(backend_choices.begin(), backend_choices.end(), requested) == backend_choices.end())
    throw std::invalid_argument("--backend " + std::string(requested) + ": not a backend (auto, cpu, gpu or ref)");
  if (requested != "auto") {
    if (!find_kind(requested, built))
      throw std::invalid_argument("--backend " + std::string(requested) + ": not built into this binary (available: " +
                                  built_list(built) + ")");
    return {std::string(requested), {}};
  }
  const backend_kind* gpu = find_kind("gpu", built);
  const bool gpu_usable = gpu && (!gpu->device_present || gpu->device_present());
  if (gpu_usable) return {"gpu", "--backend auto: gpu (a GPU device is present)"};
  if (find_kind("cpu", built))
    return {"cpu", std::string("--backend auto: cpu (") + (gpu ? "no GPU device found" : "this build has no gpu backend") + ")"};
  if (find_kind("ref", built))
    return {"ref", std::string("--backend auto: ref (") +
                       (gpu ? "no GPU device found and this build has no cpu backend" : "this build has no gpu or cpu backend") +
                       ")"};
  throw std::invalid_argument("--backend auto: this build has no backend");
}

backend_choice choose_backend(std::string_view requested) { return choose_backend(requested, built_backends()); }

std::string backend_help() {
  std::string s = "auto (default: gpu when built and a device is present, else cpu, else ref), cpu, gpu, ref; this build has: ";
  const auto& built = built_backends();
  std::string names;
  for (const auto& k : built) names += (names.empty() ? "" : ", ") + std::string(k.name) + " (" + std::string(k.summary) + ")";
  return s + names;
}

}  // namespace ordo::eval
