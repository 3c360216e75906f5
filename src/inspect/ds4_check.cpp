// The DS4 model check of `ordo inspect`: the model description must be complete, not only the
// container (a deepseek4 file with no tensors and no hyperparameters is a valid GGUF).
#include <sstream>

#include "inspect/checks.hpp"
#include "ordo/model/ds4_hparams.hpp"
#include "ordo/model/ds4_model_view.hpp"

namespace ordo::inspect {

check_result check_ds4_model(const gguf::file& f) {
  check_result r;
  const gguf::value* arch = f.find("general.architecture");
  const std::string name = arch && arch->type() == gguf::value_type::string ? arch->as_string() : std::string();
  if (name != model::ds4_arch) {
    r.notes.push_back((name.empty() ? std::string("no general.architecture") : "architecture " + name) +
                      ": not a deepseek4 model, not checked");
    return r;
  }
  const model::ds4_naming naming = model::guess_ds4_naming(f);
  try {
    const auto view = model::open_ds4(f, naming);
    r.notes.push_back(std::string(naming == model::ds4_naming::llama ? "llama.cpp" : "antirez/ds4") + " naming, " +
                      std::to_string(view.hparams.n_layer) + " layers" + (view.mtp ? " + MTP block" : ""));
  } catch (const std::exception& e) {
    // open_ds4 stops at the first hyperparameter fault; list every required key that is absent.
    for (const char* key : {"block_count"})
      if (!f.find(model::ds4_key(key))) r.problems.push_back("metadata key '" + model::ds4_key(key) + "' is missing");
    for (const model::ds4_field& field : model::ds4_fields())
      if (field.required && !f.find(model::ds4_key(field.key)))
        r.problems.push_back("metadata key '" + model::ds4_key(field.key) + "' is missing");
    if (f.tensors().empty()) r.problems.push_back("the file has no tensors");
    // Otherwise report open_ds4's own list: "<file>: N problem(s) ...:" then one per line.
    if (r.problems.empty()) {
      std::istringstream lines(e.what());
      const std::string prefix = f.name() + ": ";
      for (std::string line; std::getline(lines, line);) {
        const bool item = line.rfind("  ", 0) == 0;
        if (line.rfind(prefix, 0) == 0) line.erase(0, prefix.size());
        while (!line.empty() && line.front() == ' ') line.erase(0, 1);
        if (line.empty()) continue;
        if (item || line.find("problem(s) with the DS4 tensors") == std::string::npos) r.problems.push_back(line);
      }
    }
    if (r.problems.empty()) r.problems.push_back(e.what());
  }
  return r;
}

}  // namespace ordo::inspect
