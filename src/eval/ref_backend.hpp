/// `--backend ref`: the double-precision Eigen reference on a GGUF, token after token.
#pragma once
#include <memory>

#include "eval/backend.hpp"

namespace ordo::eval {

std::unique_ptr<backend> make_ref_backend(const backend_options& options);

}  // namespace ordo::eval
