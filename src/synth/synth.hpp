/// `ordo synth`: deterministic random-weight DS4-architecture GGUF files. A preset gives the
/// hyperparameters (tiny: the oracle test shape of oracles.md §1; small: a few hundred MB; full:
/// DeepSeek V4 Flash), `--set` overrides any `deepseek4.*` key, and the weights follow the
/// conditioning recipe of docs/synth.md so activations stay well-scaled through every layer.
/// Tensors are generated row by row from (seed, tensor name, row), so the bytes do not depend on
/// chunking, and written through the streaming gguf::writer: a 150 GB model never sits in memory.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ordo/model/ds4_hparams.hpp"
#include "ordo/model/ds4_tensor_map.hpp"
#include "ordo/model/gguf.hpp"

namespace ordo::synth {

enum class preset { tiny, small, full };
enum class vocab_kind { bytes, deepseek };

struct options {
  preset base = preset::tiny;
  std::vector<std::pair<std::string, std::string>> overrides;  // --set KEY=VALUE, in order
  uint64_t seed = 0;
  std::optional<gguf::ggml_type> dense;    // nullopt: the preset's default
  std::optional<gguf::ggml_type> experts;  // nullopt: the preset's default
  bool mtp = false;
  model::ds4_naming naming = model::ds4_naming::ds4;
  vocab_kind vocab = vocab_kind::bytes;
  std::filesystem::path tokenizer_json;  // for vocab_kind::deepseek
  std::filesystem::path out;
  std::filesystem::path mtp_out;  // ds4 naming + mtp: the sidecar (default: <out stem>-mtp.gguf)
};

/// The oracle's tokenizer.json (ORDO_ORACLE_DIR), the default for --vocab deepseek.
std::filesystem::path default_tokenizer_json();

/// The hyperparameters of a preset before overrides.
model::ds4_hparams preset_hparams(preset p);
/// The preset's default types: tiny f32/f32; small and full q8_0 dense (F16 for the tensors ds4
/// ships as F16) with q4_K experts, DS4's published mix.
gguf::ggml_type default_dense(preset p);
gguf::ggml_type default_experts(preset p);

/// How a tensor's values are drawn (docs/synth.md).
struct init_recipe {
  enum class kind {
    uniform,      // uniform, zero mean, standard deviation `stddev` (quantized: about that)
    around_one,   // 1 + uniform(±spread): norm weights
    uniform_in,   // uniform in [lo, hi]: HC scales
    hc_base,      // mixing bias: pre/post 0, comb +1 on the diagonal, ± spread jitter
    tid2eid,      // per token, n_expert_used distinct expert ids
  };
  kind k = kind::uniform;
  float stddev = 0.0f;
  float lo = 0.0f, hi = 0.0f;  // uniform_in; around_one/hc_base use hi as the jitter spread
};

struct planned_tensor {
  gguf::tensor_spec spec;
  model::ds4_role role;
  int layer;
  init_recipe init;
};

/// One output file: its path, metadata and tensors in write order.
struct file_plan {
  std::filesystem::path path;
  std::vector<gguf::key_value> metadata;
  std::vector<planned_tensor> tensors;
};

/// Resolves options into hyperparameters (validated) and one or two file plans (ds4 naming with
/// MTP adds the `mtp.0.*` sidecar). Throws model::ds4_error / std::runtime_error with the flag at
/// fault.
struct plan {
  model::ds4_hparams hparams;
  std::vector<file_plan> files;
};
plan make_plan(const options& opt);

/// Called while writing: bytes done and total of the current file, the tensor being written.
using progress_fn = std::function<void(const gguf::write_progress&)>;

/// Polled between chunks while writing; returning true abandons the file (write_file throws
/// synth::interrupted and the writer removes `<path>.partial`).
using stop_fn = std::function<bool()>;

/// Thrown by write_file when `stop` asked to abandon the file.
struct interrupted : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// What is wrong with writing `needed` more bytes into `dir` that has `available` bytes free:
/// empty when they fit, else a message naming both sizes and the folder.
std::string free_space_shortfall(const std::filesystem::path& dir, uint64_t needed, uint64_t available);

/// Writes one planned file. Same plan and seed → same bytes. Before the first tensor byte it
/// checks that the folder has room for the whole file (throws std::runtime_error otherwise).
void write_file(const file_plan& f, uint64_t seed, const progress_fn& progress = {}, const stop_fn& stop = {});

/// The bytes of one tensor (tests; small tensors only).
std::vector<std::byte> tensor_bytes(const planned_tensor& t, uint64_t seed);

}  // namespace ordo::synth
