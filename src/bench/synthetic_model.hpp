/// `ordo bench --synthetic`: a DS4 model whose weights are generated where they are used, never
/// read from a file — the full DS4 Flash (81 GB in the q2 layout) cannot be copied to a GPU
/// machine, so its bytes are made in device memory. The tensor map is a synth file plan's
/// (synth::make_plan: the same names, types, shapes, metadata and MTP sidecar as `ordo synth`
/// would write), resolved through runtime::tensor_table exactly as a file is. Bytes:
///   - small tensors and every tensor whose recipe is not plain `uniform` (norm weights, HC
///     scales and bases, tid2eid): synth's own generator on the host, then copied where needed;
///   - large uniform tensors (projections, experts, the embedding, the head): random_blocks'
///     counter-based generator (synth/random_blocks.hpp) at the recipe's standard deviation, on
///     the GPU straight into device memory (on the CPU into host memory without a GPU).
/// The host keeps what host code of a step reads (the embedding rows, the block vectors);
/// on the GPU the embedding is copied back once. Same options → same bytes.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ordo/runtime/device_memory.hpp"
#include "ordo/runtime/weights.hpp"
#include "synth/synth.hpp"

namespace ordo::bench {

/// The expert layouts: q2 (IQ2_XXS gate/up, Q2_K down: antirez/ds4's 81 GB file), mxfp4, q4_k,
/// q8_0, f32 (experts of that type; dense weights as synth's preset has them).
struct synthetic_options {
  synth::preset base = synth::preset::full;
  std::string layout = "q2";
  std::optional<gguf::ggml_type> dense;  // non-expert matmuls; nullopt: the preset's (full: q8_0)
  uint32_t n_layer = 0;  // 0: the preset's; else the first n_layer layers' kinds (145 GiB MXFP4 needs fewer)
  uint64_t seed = 0;
  bool mtp = false;  // also the MTP block (its sidecar's tensors)
  bool gpu = true;  // weights in device memory (the gpu executor) or host memory (cpu)
  /// Uniform tensors larger than this come from random_blocks, the rest from synth's generator
  /// (tests set 0 to send every uniform tensor through random_blocks).
  uint64_t host_made_max = 4ull << 20;
};

/// What the byte floor of a decode step counts (docs/PERFORMANCE.md).
struct synthetic_bytes {
  uint64_t total = 0;           // every tensor, MTP sidecar included
  uint64_t dense_per_token = 0;  // main-model tensors a decode step reads whole (all but embedding, routed experts)
  uint64_t routed_per_token = 0; // n_expert_used experts × (gate + up + down) over every layer
  uint64_t mtp = 0;             // the MTP block's tensors
};

/// Progress of the build: tensors done of total, bytes done of total, the tensor's name.
using build_progress = std::function<void(std::size_t done, std::size_t count, uint64_t bytes_done, uint64_t bytes_total,
                                          const std::string& tensor)>;

class synthetic_model {
 public:
  /// Plans, places and generates every tensor. Throws what synth::make_plan throws (the option
  /// at fault), gpu::error when the device memory allocation fails (with the bytes).
  static std::unique_ptr<synthetic_model> build(const synthetic_options& o, const build_progress& progress = {});

  const model::ds4_hparams& hparams() const { return host_.hparams(); }
  /// What host code reads; on the GPU its large tensors point into device memory (host code of a
  /// step never reads those).
  const runtime::model_weights& host() const { return host_; }
  /// What the entries read (the same as host() without a GPU).
  const runtime::model_weights& device() const { return gpu_ ? device_ : host_; }
  bool on_gpu() const { return gpu_; }
  const synthetic_bytes& bytes() const { return bytes_; }
  /// Seconds the bytes took to make (host recipes, device generation).
  double build_seconds() const { return build_seconds_; }

 private:
  synthetic_model() = default;
  bool gpu_ = false;
  runtime::device::buffer device_memory_;
  std::vector<std::unique_ptr<std::byte[]>> host_memory_;
  runtime::tensor_table main_host_, mtp_host_, main_device_, mtp_device_;
  runtime::model_weights host_, device_;
  synthetic_bytes bytes_;
  double build_seconds_ = 0;
};

/// The expert types of a layout name (gate/up, down); throws std::invalid_argument naming the
/// layouts there are.
std::pair<gguf::ggml_type, gguf::ggml_type> synthetic_expert_types(const std::string& layout);

}  // namespace ordo::bench
