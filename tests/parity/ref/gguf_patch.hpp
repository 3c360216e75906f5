/// Rewrites F32 tensors of a GGUF file in place, for parity fixtures that need weights outside what
/// `ordo synth` draws (e.g. expert projections scaled until the SwiGLU clamp binds). Only the data
/// bytes change; the header, the tensor table and every other tensor stay as written.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "ordo/model/gguf.hpp"

namespace ordo::parity {

/// new value of element i (GGUF order: ne0 fastest) given its old value
using f32_edit = std::function<float(uint64_t i, float old)>;

struct tensor_edit {
  std::string name;
  f32_edit edit;
};

/// Applies each edit to its F32 tensor of `path`. A tensor that is missing or not F32 fails the test.
inline void patch_f32_tensors(const std::filesystem::path& path, const std::vector<tensor_edit>& edits) {
  struct span_at {
    uint64_t at, n;
  };
  std::vector<span_at> where;
  {
    const gguf::file f = gguf::file::open(path);
    for (const auto& e : edits) {
      const gguf::tensor_info* t = f.find_tensor(e.name);
      ASSERT_NE(t, nullptr) << path << ": no tensor " << e.name;
      ASSERT_EQ(t->type, gguf::ggml_type::f32) << e.name << " is not F32";
      where.push_back({f.data_offset() + t->offset, t->elements()});
    }
  }  // unmapped before writing
  std::fstream io(path, std::ios::in | std::ios::out | std::ios::binary);
  ASSERT_TRUE(io) << "cannot open " << path;
  for (std::size_t k = 0; k < edits.size(); ++k) {
    std::vector<float> v(where[k].n);
    io.seekg(static_cast<std::streamoff>(where[k].at));
    io.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(float)));
    for (uint64_t i = 0; i < v.size(); ++i) v[i] = edits[k].edit(i, v[i]);
    io.seekp(static_cast<std::streamoff>(where[k].at));
    io.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(float)));
  }
  ASSERT_TRUE(io.good()) << "writing " << path;
}

}  // namespace ordo::parity
