/// The conversion plan: every GGUF tensor to write (name, type, dims) and where its rows come
/// from in the checkpoint. Building the plan reads only safetensors headers and config.json, so
/// every naming, shape, dtype and completeness problem is reported (naming the file and tensor)
/// before a single output byte is written; `ordo convert --dry-run` prints it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "convert/hf_config.hpp"
#include "convert/safetensors.hpp"
#include "convert/tensor_names.hpp"
#include "convert/vocab_section.hpp"
#include "ordo/model/gguf_types.hpp"
#include "ordo/model/gguf_value.hpp"

namespace ordo::convert {

/// How a part's bytes become output rows.
enum class source_kind {
  float_rows,  // F32/F16/BF16/F64 values
  fp8_blocks,  // F8_E4M3 codes + 128×128 block scales
  fp4_packed,  // I8 bytes holding two E2M1 codes + per-32 E8M0 scales
  int_table,   // I64/I32 indices (tid2eid), written as I32
};

/// A run of rows of one source tensor seen as 2-D [numel / cols, cols]. Output rows are the
/// concatenation of the parts (one per expert for per-expert sources; half of each expert's rows
/// for HF's fused gate_up).
struct source_part {
  const st_tensor* tensor = nullptr;
  const st_tensor* scale = nullptr;  // fp8_blocks, fp4_packed
  source_kind kind = source_kind::float_rows;
  std::int64_t first_row = 0;
  std::int64_t rows = 0;
  std::int64_t cols = 0;  // elements per row (an fp4 row has cols/2 bytes)
};

struct planned_tensor {
  std::string name;
  gguf::ggml_type type;
  std::vector<std::uint64_t> dims;  // ne0 first
  tensor_class cls;
  std::vector<source_part> parts;
  std::int64_t rows() const;  // total rows over the parts
  std::int64_t cols() const;  // == dims[0]
};

/// Output type choices. Unset `dense` is q8_0 (ds4's layout); unset `experts` is mxfp4 for FP4
/// sources (lossless) and the dense type otherwise.
struct convert_options {
  std::optional<gguf::ggml_type> dense;
  gguf::ggml_type aux = gguf::ggml_type::f16;
  std::optional<gguf::ggml_type> experts;
  std::string model_name = "DeepSeek-V4";
  vocab_options vocab;
  bool mtp = false;  // also plan ds4's MTP sidecar from the checkpoint's mtp.0.* tensors
};

struct conversion_plan {
  hf_hparams hp;
  std::vector<gguf::key_value> metadata;
  std::vector<planned_tensor> tensors;
  // ds4's MTP sidecar (architecture deepseek4_mtp_support, mtp.0.* names); empty unless asked.
  std::vector<gguf::key_value> mtp_metadata;
  std::vector<planned_tensor> mtp_tensors;
  std::vector<std::string> notes;  // what was skipped and why (MTP tensors, hash-layer biases)
};

conversion_plan plan_conversion(const checkpoint& ck, const hf_hparams& hp, const convert_options& opts);

/// "q8_0" → q8_0 for the types the converter can write in `cls` (throws naming the flag's choices).
gguf::ggml_type parse_output_type(const std::string& text, tensor_class cls);

}  // namespace ordo::convert
