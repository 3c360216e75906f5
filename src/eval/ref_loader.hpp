/// Fills the double-precision reference (include/ordo/ref) from a DS4 GGUF: hyperparameters from
/// the deepseek4.* metadata, every tensor resolved through the DS4 tensor map (both antirez/ds4
/// and llama.cpp naming) and dequantized exactly (every supported format's values are floats;
/// the reference widens them to double).
#pragma once
#include <filesystem>
#include <string>

#include "ordo/model/ds4_hparams.hpp"
#include "ordo/model/gguf.hpp"
#include "ordo/ref/config.hpp"
#include "ordo/ref/weights.hpp"

namespace ordo::eval {

struct ref_model {
  ref::config config;  // the file's model::ds4_hparams
  ref::model_weights weights;
  model::ds4_naming naming = model::ds4_naming::ds4;
};

/// The naming a file follows (model::guess_ds4_naming): llama when it declares an MTP block that
/// is present as blk.<n>.nextn.*, ds4 otherwise (the two agree on every main tensor).
model::ds4_naming detect_naming(const gguf::file& f);

/// Loads the whole model; `mtp_sidecar` is antirez/ds4's separate MTP file (ds4 naming), or
/// empty. Throws naming the file and tensor at fault.
ref_model load_ref_model(const gguf::file& f, const gguf::file* mtp_sidecar = nullptr);

}  // namespace ordo::eval
