// Tiny synth models written once per test binary into a scratch folder (ordo synth's library),
// for the runtime tests that need real GGUF files: ds4 naming with its MTP sidecar, llama naming
// with the MTP block inside.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <string>

#include "synth/synth.hpp"

namespace ordo::runtime::test {

struct synth_model {
  std::filesystem::path main, mtp;  // mtp empty for llama naming
  synth::plan plan;
};

inline synth_model write_tiny(model::ds4_naming naming, const std::string& stem,
                              std::optional<gguf::ggml_type> dense = {}, std::optional<gguf::ggml_type> experts = {}) {
  const auto dir = std::filesystem::temp_directory_path() / ("ordo_runtime_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  synth::options o;
  o.base = synth::preset::tiny;
  o.mtp = true;
  o.naming = naming;
  o.dense = dense;
  o.experts = experts;
  o.out = dir / (stem + ".gguf");
  synth_model m;
  m.plan = synth::make_plan(o);
  for (const auto& f : m.plan.files) synth::write_file(f, o.seed);
  m.main = m.plan.files.at(0).path;
  if (m.plan.files.size() > 1) m.mtp = m.plan.files[1].path;
  return m;
}

}  // namespace ordo::runtime::test
