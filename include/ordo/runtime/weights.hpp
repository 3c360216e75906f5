/// The engine's weights: the GGUF file(s) mapped read-only (gguf::file) and, for every tensor a
/// layer step needs, a view {pointer, format, rows, row_bytes} reached through the DS4 tensor map
/// (include/ordo/model), so antirez/ds4 files (MTP in an `mtp.0.*` sidecar) and llama.cpp files
/// (MTP as block n_layer with `nextn.*`) load the same way. A role a step needs but the file
/// lacks is an error naming the tensor it expected; opening reports every problem of the file
/// at once (model::open_ds4).
#pragma once
#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ordo/model/ds4_model_view.hpp"
#include "ordo/model/gguf.hpp"

namespace ordo::runtime {

/// One tensor as the kernels see it. 2-D weights: `rows` rows of `cols` elements; routed experts
/// (3-D): `experts` matrices of `rows` rows each, expert e at data + e·rows·row_bytes.
struct weight_view {
  std::string name;                 // the tensor's name in its file
  const std::byte* data = nullptr;  // into the mapping; null: absent
  gguf::ggml_type format = gguf::ggml_type::f32;
  uint64_t cols = 0;       // ne0: elements per row (the reduction length)
  uint64_t rows = 0;       // ne1 (1 for vectors)
  uint64_t experts = 1;    // ne2
  uint64_t row_bytes = 0;  // bytes of one row of `cols` elements
  uint64_t bytes() const { return experts * rows * row_bytes; }
  explicit operator bool() const { return data != nullptr; }
};

/// The tensors of one block (a main layer or the MTP block), by role.
struct block_weights {
  uint32_t layer = 0;
  uint32_t ratio = 0;
  bool hash = false;
  bool mtp = false;
  std::string prefix;  // "blk.3." or "mtp.0."
  std::array<weight_view, model::ds4_role_count> views;
  const weight_view* find(model::ds4_role r) const;
  /// The view of `r`; throws model::ds4_error naming the tensor (with this block's prefix and
  /// the file's naming) when the block has none, e.g. "blk.3.indexer.proj.weight: needed by the
  /// layer step but absent (layer 3, ratio 128)".
  const weight_view& need(model::ds4_role r) const;
  model::ds4_naming naming = model::ds4_naming::ds4;
};

/// A GGUF tensor table without a file behind it (the synthetic bench, `ordo bench --synthetic`):
/// the metadata and tensor infos a file would have, each tensor's `data` wherever the caller put
/// its bytes. open_ds4 resolves it exactly as it resolves a gguf::file, so the tensor map, the
/// type checks and the errors are the file's.
struct tensor_table {
  std::string label;  // stands for the path in messages
  std::vector<gguf::key_value> metadata;
  std::vector<gguf::tensor_info> tensors;
  const std::string& name() const { return label; }
  const gguf::value* find(std::string_view key) const;
  const gguf::tensor_info* find_tensor(std::string_view tensor) const;
};

class model_weights {
 public:
  /// Maps `main` (and antirez/ds4's MTP sidecar when given), guesses the naming, resolves every
  /// tensor. Throws gguf::error / model::ds4_error naming the file and each tensor at fault.
  static model_weights open(const std::filesystem::path& main, const std::filesystem::path& mtp = {});
  /// The same from in-memory tables (`mtp`: antirez/ds4's sidecar table, or null). The tables'
  /// tensor bytes must outlive the weights; nothing is copied.
  static model_weights from_tables(const tensor_table& main, const tensor_table* mtp = nullptr);

  const model::ds4_hparams& hparams() const { return hparams_; }
  model::ds4_naming naming() const { return naming_; }
  /// Global tensors (token_embd, output, output_norm, output HC head) as a block with prefix "".
  const block_weights& globals() const { return globals_; }
  const block_weights& layer(uint32_t il) const { return layers_.at(il); }
  const std::vector<block_weights>& layers() const { return layers_; }
  const block_weights* mtp() const { return mtp_ ? &*mtp_ : nullptr; }
  /// Every tensor of the model (main file and sidecar), for the memory plan.
  std::vector<const weight_view*> all() const;
  uint64_t bytes() const;
  /// The same blocks and views with each tensor's bytes at `place(view)` instead of the mapping
  /// (the GPU upload, device_weights.hpp). The copy maps no file: it is valid while the storage
  /// `place` points into is.
  model_weights rebased(const std::function<const std::byte*(const weight_view&)>& place) const;

 private:
  template <class File>
  void bind(const File& f, const File* side);
  std::vector<std::unique_ptr<gguf::file>> files_;
  model::ds4_hparams hparams_;
  model::ds4_naming naming_ = model::ds4_naming::ds4;
  block_weights globals_;
  std::vector<block_weights> layers_;
  std::optional<block_weights> mtp_;
};

/// A view of a tensor of the GGUF table (rows, cols, experts from its dims).
weight_view make_weight_view(const gguf::tensor_info& t);

}  // namespace ordo::runtime
