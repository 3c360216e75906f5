/// The engine's weights on the GPU (DESIGN §6: "the GPU backend uploads each tensor once"): every
/// tensor of a model_weights — main file and MTP sidecar, ds4 or llama naming — copied once into
/// one device allocation (placed by weight_placement.hpp: each tensor 256-byte aligned, a block's
/// same-input group members back to back), and a model_weights of the same blocks
/// and views pointing there. The GPU session plans and runs its layer steps on `views()`; host
/// code (the embedding gather, the block vectors) keeps reading the mapped file, so weights are
/// plain device memory, never managed.
#pragma once
#include <cstdint>

#include "ordo/runtime/device_memory.hpp"
#include "ordo/runtime/weights.hpp"

namespace ordo::runtime {

class device_weights {
 public:
  /// Uploads every tensor of `host`; throws gpu::error (no GPU, allocation) naming the bytes.
  explicit device_weights(const model_weights& host);
  const model_weights& views() const { return views_; }
  uint64_t bytes() const { return bytes_; }

 private:
  uint64_t bytes_ = 0;
  device::buffer memory_;
  model_weights views_;
};

}  // namespace ordo::runtime
