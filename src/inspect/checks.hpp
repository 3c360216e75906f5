/// The validation steps `ordo inspect` runs on a file that opened (so the GGUF container is
/// already valid). Each check looks at one concern and reports problems (the file is invalid for
/// that purpose) and notes (worth knowing). To add one, write a function with the `check::run`
/// signature and append it to the list in checks.cpp.
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ordo/model/gguf.hpp"

namespace ordo::inspect {

struct check_result {
  std::vector<std::string> problems;  // non-empty: the check failed
  std::vector<std::string> notes;
  bool ok() const { return problems.empty(); }
};

struct check {
  std::string_view name;     // short id shown in the report, e.g. "layout"
  std::string_view summary;  // what it verifies, one line
  std::function<check_result(const gguf::file&)> run;
};

/// Every check, in the order inspect runs them.
const std::vector<check>& checks();

/// Built-in: how the data section is used (gaps between tensors, bytes after the last tensor,
/// tensors out of file order). Only notes: the reader already rejected what is invalid.
check_result check_layout(const gguf::file& f);

/// Built-in: a `deepseek4` file is a loadable DS4 model: its hyperparameters are present and
/// valid and every tensor of the tensor map exists with an accepted type and the exact shape
/// (model::open_ds4, in the naming guess_ds4_naming picks). Each problem names the key or the
/// tensor. Files of other architectures only get a note (inspect reads any GGUF).
check_result check_ds4_model(const gguf::file& f);

}  // namespace ordo::inspect
