/// `ordo inspect FILE --plan`: the memory plan of a model file at a context and tier — weights
/// by group, sequence state by kind, workspace — and whether it fits the host RAM (CPU executor)
/// or a given device memory (GPU executor). Exit status 1 when the file does not open as a DS4
/// model or the plan does not fit where it was asked to.
#pragma once
#include <cstdint>
#include <cstdio>
#include <filesystem>

namespace ordo::runtime {

struct plan_report_options {
  uint32_t ctx = 0;           // positions; 0: min(32768 (ds4's default -c), the model's context_length)
  uint32_t tier = 16;         // workspace rows: the largest tier
  uint64_t host_bytes = 0;    // 0: the machine's physical memory
  uint64_t device_bytes = 0;  // 0: no device check; else the GPU executor's placement is checked
  std::filesystem::path mtp;  // antirez/ds4 MTP sidecar, optional
};

int print_memory_plan(const std::filesystem::path& file, const plan_report_options& o, std::FILE* out, std::FILE* err);

}  // namespace ordo::runtime
