/// Executes a conversion plan: streams each planned tensor from the checkpoint through the
/// decoders (FP8 block dequant, FP4 → MXFP4 repack, float widening, index narrowing) and the
/// encoders into gguf::writer, a bounded chunk of rows at a time, so memory stays at a few
/// hundred MB whatever the model size. `convert_checkpoint` is the whole `ordo convert`.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <optional>

#include "convert/plan.hpp"

namespace ordo::convert {

/// Writes `plan` to `out` (and its MTP sidecar, when planned, to `mtp_out`). Progress lines (one
/// per tensor, plus byte counts on long tensors) go to `log` when it is not null. Errors name the
/// output file and the tensor (source and GGUF).
void run_conversion(const checkpoint& ck, const conversion_plan& plan, const std::filesystem::path& out,
                    std::ostream* log, const std::optional<std::filesystem::path>& mtp_out = std::nullopt);

struct convert_request {
  std::filesystem::path source;                 // checkpoint file or directory
  std::filesystem::path output;                 // .gguf
  std::optional<std::filesystem::path> config;  // default: <source dir>/config.json
  convert_options options;
  bool dry_run = false;  // plan and print, write nothing
  std::optional<std::filesystem::path> mtp_output;  // ds4's MTP sidecar (mtp.0.*); sets options.mtp
};

/// Opens the checkpoint, reads config.json, plans, prints the notes to `log` and the plan to
/// `plan_out` (when not null), and unless dry_run writes the GGUF(s). (No plan is returned: its
/// parts point into the checkpoint, which lives only for the call.)
void convert_checkpoint(const convert_request& req, std::ostream* log, std::ostream* plan_out = nullptr);

/// One line per planned tensor (main file, then the MTP sidecar): GGUF name, type, dims, sources.
/// The checkpoint the plan was made from must still be open.
void print_plan(const conversion_plan& plan, std::ostream& os);

}  // namespace ordo::convert
