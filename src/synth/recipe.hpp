/// The per-tensor half of `ordo synth`: which distribution (docs/synth.md) and which ggml type
/// each DS4 tensor gets.
#pragma once
#include <vector>

#include "synth/synth.hpp"

namespace ordo::synth {

/// The distribution of `role` with GGUF dims `dims` (ne0 = fan-in).
init_recipe recipe_for(model::ds4_role role, const std::vector<uint64_t>& dims, const model::ds4_hparams& h);

/// The ggml type of a tensor of class `c` given --dense and --experts.
gguf::ggml_type type_for(model::ds4_type_class c, gguf::ggml_type dense, gguf::ggml_type experts);

}  // namespace ordo::synth
