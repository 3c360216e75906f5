/// `ordo inspect FILE`: a readable report of a GGUF file (header, metadata with long arrays
/// abbreviated, tensor table, bytes per tensor class) followed by the validation checks of
/// checks.hpp. Opening the file already validates the container (gguf::file); an invalid file is
/// reported with the reader's message and a non-zero status.
#pragma once
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "ordo/model/gguf.hpp"

namespace ordo::inspect {

struct options {
  std::size_t max_array_items = 8;  // array items shown per metadata value
  bool show_metadata = true;
  bool show_tensors = true;         // the per-tensor table (classes are always shown)
  /// Extra groups to total, as globs over tensor names (`*` any run, `?` one character), e.g.
  /// "blk.*.ffn_*_exps.weight" for all routed experts.
  std::vector<std::string> groups;
};

/// Bytes per tensor class: names with their numeric path components replaced by `*`
/// ("blk.7.ffn_gate_exps.weight" → "blk.*.ffn_gate_exps.weight").
struct tensor_class {
  std::string pattern;
  std::size_t count = 0;
  uint64_t bytes = 0;
  std::vector<gguf::ggml_type> types;  // distinct, in first-seen order
};

/// The class pattern of one tensor name.
std::string class_pattern(const std::string& tensor_name);
/// Classes of a file's tensors, largest first (ties by pattern).
std::vector<tensor_class> tensor_classes(const gguf::file& f);

/// Whether `name` matches `glob` (`*` matches any run of characters, `?` exactly one).
bool glob_match(std::string_view glob, std::string_view name);
/// The tensors matching `glob`, totalled (pattern = the glob).
tensor_class glob_group(const gguf::file& f, const std::string& glob);

/// Writes the report of `path` to `out` (errors to `err`); returns the exit status: 0 when the
/// file opens and every check passes, 1 otherwise.
int run(const std::filesystem::path& path, const options& opt, std::FILE* out, std::FILE* err);

}  // namespace ordo::inspect
