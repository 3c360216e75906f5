#include "eval/backend.hpp"

#include <stdexcept>

#include "eval/cpu_backend.hpp"
#include "eval/ref_backend.hpp"

namespace ordo::eval {

std::vector<std::string> backend_names() { return {"ref", "cpu"}; }

std::unique_ptr<backend> make_backend(std::string_view kind, const backend_options& options) {
  if (kind == "ref") return make_ref_backend(options);
  if (kind == "cpu") return make_cpu_backend(options);
  std::string known;
  for (const auto& n : backend_names()) known += (known.empty() ? "" : ", ") + n;
  throw std::runtime_error("--backend " + std::string(kind) + ": not available in this build (available: " + known + ")");
}

}  // namespace ordo::eval
