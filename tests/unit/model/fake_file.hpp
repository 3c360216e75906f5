// An in-memory stand-in for gguf::file with just what open_ds4 and ds4_read_hparams use, so the
// model-description tests can corrupt one tensor or key at a time.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "ordo/model/ds4_tensor_map.hpp"
#include "ordo/model/gguf_value.hpp"

namespace ordo::model::test {

struct fake_tensor {
  std::string name;
  gguf::ggml_type type;
  std::vector<uint64_t> dims;
};

struct fake_file {
  std::string path = "fake.gguf";
  std::map<std::string, gguf::value, std::less<>> meta;
  std::map<std::string, fake_tensor, std::less<>> tensors;

  const std::string& name() const { return path; }
  const gguf::value* find(std::string_view key) const {
    auto it = meta.find(key);
    return it == meta.end() ? nullptr : &it->second;
  }
  const fake_tensor* find_tensor(std::string_view n) const {
    auto it = tensors.find(n);
    return it == tensors.end() ? nullptr : &it->second;
  }
};

/// A well-formed file of `part`: metadata from ds4_metadata, every listed tensor with the first
/// accepted type of its class (the "ds4 type").
inline fake_file make_fake(const ds4_hparams& h, ds4_naming naming, ds4_file_part part = ds4_file_part::main) {
  fake_file f;
  for (auto& kv : ds4_metadata(h, naming)) f.meta.emplace(kv.key, kv.val);
  if (part == ds4_file_part::mtp_sidecar) f.meta["general.architecture"] = gguf::value::string("deepseek4_mtp_support");
  for (const auto& s : ds4_tensor_specs(h, naming, part))
    f.tensors[s.name] = {s.name, ds4_accepted_types(s.type_class).front(), s.dims};
  return f;
}

}  // namespace ordo::model::test
