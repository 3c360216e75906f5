/// `--backend cpu`: the exact engine (runtime::session) on the CPU executor, one token at a time
/// through `step` (bit-identical to any prefill chunking, E3).
#pragma once
#include <memory>

#include "eval/backend.hpp"

namespace ordo::eval {

std::unique_ptr<backend> make_cpu_backend(const backend_options& options);

}  // namespace ordo::eval
