// Differential libFuzzer harness: ordo's reader against ggml's (gguf_init_from_buffer from the
// prebuilt libggml-base oracle). ordo is meant to be stricter than ggml, so a file ggml rejects
// must be rejected by ordo too, except for the two things ordo accepts on purpose: nested arrays
// and tensor data not packed in table order (ggml demands both away). When both accept, they
// must agree on every key, type and tensor (name, type, shape, offset, size).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "ggml.h"
#include "gguf.h"
#include "ordo/model/gguf.hpp"

namespace {

using namespace ordo::gguf;

[[noreturn]] void finding(const char* what) {
  std::fprintf(stderr, "gguf_ggml_diff_fuzz: %s\n", what);
  std::abort();
}

bool has_nested_array(const file& f) {
  for (const auto& kv : f.metadata())
    if (kv.val.is_array() && kv.val.element_type() == value_type::array) return true;
  return false;
}

// ggml's layout rule: each tensor at the previous one's end padded to the alignment.
bool packed_in_table_order(const file& f) {
  uint64_t expect = 0;
  for (const auto& t : f.tensors()) {
    if (t.offset != expect) return false;
    expect = (t.offset + t.nbytes + f.alignment() - 1) / f.alignment() * f.alignment();
  }
  return true;
}

void compare(const file& f, const gguf_context* g) {
  if (gguf_get_n_kv(g) != int64_t(f.metadata().size())) finding("kv count differs");
  for (int64_t i = 0; i < gguf_get_n_kv(g); ++i) {
    const auto& kv = f.metadata()[std::size_t(i)];
    if (kv.key != gguf_get_key(g, i)) finding("key differs");
    if (uint32_t(kv.val.type()) != uint32_t(gguf_get_kv_type(g, i))) finding("value type differs");
    // String values may hold NULs (ordo keeps them); ggml hands out a C string.
    if (kv.val.type() == value_type::string &&
        kv.val.as_string().substr(0, kv.val.as_string().find('\0')) != gguf_get_val_str(g, i))
      finding("string value differs");
    if (kv.val.is_array() && kv.val.items().size() != gguf_get_arr_n(g, i))
      finding("array length differs");
  }
  if (gguf_get_n_tensors(g) != int64_t(f.tensors().size())) finding("tensor count differs");
  if (!f.tensors().empty() && gguf_get_data_offset(g) != f.data_offset())
    finding("data offset differs");
  for (int64_t i = 0; i < gguf_get_n_tensors(g); ++i) {
    const auto& t = f.tensors()[std::size_t(i)];
    if (t.name != gguf_get_tensor_name(g, i)) finding("tensor name differs");
    if (uint32_t(t.type) != uint32_t(gguf_get_tensor_type(g, i))) finding("tensor type differs");
    if (t.offset != gguf_get_tensor_offset(g, i)) finding("tensor offset differs");
    if (t.nbytes != gguf_get_tensor_size(g, i)) finding("tensor size differs");
    const int64_t* ne = gguf_get_tensor_ne(g, i);
    for (std::size_t d = 0; d < 4; ++d)
      if (ne[d] != (d < t.dims.size() ? int64_t(t.dims[d]) : 1)) finding("tensor shape differs");
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ggml_log_set([](enum ggml_log_level, const char*, void*) {}, nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  gguf_context* g = gguf_init_from_buffer(data, size, {true, nullptr});
  try {
    const file f = file::from_bytes(std::vector<std::byte>(reinterpret_cast<const std::byte*>(data),
                                                           reinterpret_cast<const std::byte*>(data) + size),
                                    "fuzz");
    if (!g) {
      if (!has_nested_array(f) && packed_in_table_order(f))
        finding("ordo accepted a file ggml rejects (not for nested arrays or layout)");
    } else {
      compare(f, g);
    }
  } catch (const error&) {
  }
  if (g) gguf_free(g);
  return 0;
}
