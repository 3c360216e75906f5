/// Test helper: hand-built GGUF images, valid and malformed, each with the error it must raise.
/// The reader validation test checks them in memory; gguf_make_corpus writes them to corpus/ as
/// the seed corpus of the fuzzer and of the replay test.
#pragma once
#include <string>
#include <vector>

#include "gguf_bytes.hpp"

namespace ordo::gguf::test {

struct gguf_case {
  std::string name;            // "ok_*" must load; "bad_*" must throw gguf::error
  std::vector<std::byte> bytes;
  std::string expect_error;    // substring of the message (empty for ok_*)
};

inline std::vector<gguf_case> gguf_cases() {
  std::vector<gguf_case> cs;
  auto add = [&](std::string name, gguf_bytes g, std::string expect = {}) {
    cs.push_back({std::move(name), std::move(g.b), std::move(expect)});
  };
  constexpr uint32_t f32 = 0, q8_0 = 8, str = 8, arr = 9;

  // ---- valid -------------------------------------------------------------------------------
  add("ok_empty", gguf_bytes{}.header(0, 0));
  add("ok_one_tensor", gguf_bytes{}
                           .header(1, 1)
                           .kv_str("general.architecture", "test")
                           .tensor("t", f32, {4}, 0)
                           .pad_to(32)
                           .fill(16, 0x3f));
  add("ok_alignment_64", gguf_bytes{}
                             .header(2, 1)
                             .kv_u32("general.alignment", 64)
                             .tensor("a", q8_0, {32, 2}, 0)
                             .tensor("b", q8_0, {32, 2}, 128)
                             .pad_to(64)
                             .fill(128 + 68, 0x11));
  add("ok_nested_array", gguf_bytes{}
                             .header(0, 1)
                             .str("x.nested")
                             .u32(arr)
                             .u32(arr)
                             .u64(2)
                             .u32(4).u64(2).u32(1).u32(2)  // [u32 x 2]
                             .u32(str).u64(1).str("hi"));  // [string x 1]
  add("ok_empty_tensor", gguf_bytes{}.header(1, 0).tensor("e", f32, {0, 7}, 0).pad_to(32));
  add("ok_tensors_out_of_order", gguf_bytes{}
                                     .header(2, 0)
                                     .tensor("second", f32, {8}, 32)
                                     .tensor("first", f32, {8}, 0)
                                     .pad_to(32)
                                     .fill(64));

  // ---- header --------------------------------------------------------------------------------
  add("bad_magic", gguf_bytes{}.raw("GGML").u32(3).u64(0).u64(0),
      "not a GGUF file: magic is \"GGML\", expected \"GGUF\"");
  add("bad_magic_binary", gguf_bytes{}.raw("\x7f" "ELF").u32(3).u64(0).u64(0),
      "magic is \"\\x7fELF\"");
  add("bad_short_magic", gguf_bytes{}.raw("GG"), "truncated file");
  add("bad_empty_file", gguf_bytes{}, "truncated file");
  add("bad_version_2", gguf_bytes{}.header(0, 0, 2), "GGUF version 2 is not supported");
  add("bad_big_endian", gguf_bytes{}.header(0, 0, 0x03000000u), "big-endian");
  add("bad_truncated_counts", gguf_bytes{}.raw("GGUF").u32(3).u32(0), "truncated file");
  add("bad_kv_count_huge", gguf_bytes{}.header(0, uint64_t{1} << 60), "metadata count");
  add("bad_tensor_count_huge", gguf_bytes{}.header(uint64_t{1} << 62, 0), "tensor count");
  add("bad_counts_sum", gguf_bytes{}.header(~uint64_t{0}, 1).kv_u32("k", 1), "tensor count");

  // ---- metadata ------------------------------------------------------------------------------
  add("bad_key_len_huge", gguf_bytes{}.header(0, 1).u64(uint64_t{1} << 63).raw("k").fill(8),
      "exceeds the limit");
  add("bad_key_truncated", gguf_bytes{}.header(0, 1).u64(100).raw("abc").fill(10),
      "truncated file");
  add("bad_key_empty", gguf_bytes{}.header(0, 1).str("").u32(4).u32(0), "empty key");
  add("bad_key_utf8", gguf_bytes{}.header(0, 1).str("\xff\xfe").u32(4).u32(0),
      "not valid UTF-8");
  add("bad_key_overlong_utf8", gguf_bytes{}.header(0, 1).str("\xc0\xaf").u32(4).u32(0),
      "not valid UTF-8");
  add("bad_key_nul", gguf_bytes{}.header(0, 1).str(std::string("deep\0x", 6)).u32(4).u32(0),
      "contains control character 0x00 at byte 4");
  add("bad_key_tab", gguf_bytes{}.header(0, 1).str("a\tb").u32(4).u32(0),
      "contains control character 0x09 at byte 1");
  add("bad_value_type", gguf_bytes{}.header(0, 1).str("k").u32(13).u32(0),
      "unknown value type id 13");
  add("bad_string_len", gguf_bytes{}.header(0, 1).str("k").u32(str).u64(1000).raw("short"),
      "truncated file");
  add("bad_array_count", gguf_bytes{}.header(0, 1).str("k").u32(arr).u32(10).u64(uint64_t{1} << 40),
      "array of 1099511627776 u64 items");
  add("bad_array_string_count",
      gguf_bytes{}.header(0, 1).str("k").u32(arr).u32(str).u64(~uint64_t{0}).str("a"),
      "array of");
  add("bad_array_elem_type", gguf_bytes{}.header(0, 1).str("k").u32(arr).u32(99).u64(0),
      "unknown array element type id 99");
  {
    gguf_bytes g;
    g.header(0, 1).str("deep").u32(arr);
    for (int i = 0; i < 9; ++i) g.u32(arr).u64(1);
    g.u32(4).u64(0);
    add("bad_array_depth", g, "nested deeper than");
  }
  add("bad_bool", gguf_bytes{}.header(0, 1).str("b").u32(7).u8(2), "bool byte is 2");
  add("bad_duplicate_key", gguf_bytes{}.header(0, 2).kv_u32("k", 1).kv_u32("k", 2),
      "duplicate metadata key 'k'");
  add("bad_alignment_type", gguf_bytes{}.header(0, 1).str("general.alignment").u32(10).u64(32),
      "must be u32");
  add("bad_alignment_zero", gguf_bytes{}.header(0, 1).kv_u32("general.alignment", 0),
      "not a power of two");
  add("bad_alignment_48", gguf_bytes{}.header(0, 1).kv_u32("general.alignment", 48),
      "not a power of two");

  // ---- tensor table --------------------------------------------------------------------------
  auto one_tensor = [](std::string name, uint32_t type, std::vector<uint64_t> dims,
                       uint64_t offset, std::size_t data = 64) {
    gguf_bytes g;
    g.header(1, 0).tensor(name, type, std::move(dims), offset).pad_to(32).fill(data);
    return g;
  };
  add("bad_tensor_name_long", one_tensor(std::string(64, 'n'), f32, {4}, 0),
      "length 64 exceeds the limit of 63");
  add("bad_tensor_name_empty", one_tensor("", f32, {4}, 0), "empty name");
  add("bad_tensor_name_utf8", one_tensor("w\xed\xa0\x80", f32, {4}, 0), "not valid UTF-8");
  add("bad_tensor_name_newline", one_tensor("w\n", f32, {4}, 0), "contains control character 0x0a");
  add("bad_n_dims_0", gguf_bytes{}.header(1, 0).str("t").u32(0).u32(f32).u64(0).fill(16),
      "n_dims = 0");
  add("bad_n_dims_5", gguf_bytes{}.header(1, 0).str("t").u32(5).u64(1).u64(1).u64(1).u64(1).u64(1)
                          .u32(f32).u64(0),
      "n_dims = 5");
  add("bad_ggml_type_99", one_tensor("t", 99, {4}, 0), "unknown or removed ggml type id 99");
  add("bad_ggml_type_removed_4", one_tensor("t", 4, {32}, 0), "unknown or removed ggml type id 4");
  add("bad_ne0_not_multiple", one_tensor("t", q8_0, {33}, 0), "not a multiple of the block size 32");
  add("bad_size_overflow", one_tensor("t", f32, {uint64_t{1} << 32, uint64_t{1} << 32}, 0),
      "overflows");
  add("bad_elements_overflow",
      one_tensor("t", /*q4_0*/ 2, {uint64_t{1} << 44, uint64_t{1} << 19}, 0), "element count overflows");
  add("bad_dim_int64", one_tensor("t", f32, {uint64_t{1} << 63}, 0), "does not fit in int64");
  add("bad_offset_misaligned", one_tensor("t", f32, {4}, 4), "not a multiple of the alignment");
  add("bad_data_past_end", one_tensor("t", f32, {17}, 0), "extends past the end");
  add("bad_offset_huge", one_tensor("t", f32, {4}, uint64_t{1} << 63), "extends past the end");
  add("bad_offset_wrap", one_tensor("t", f32, {4}, ~uint64_t{31}), "extends past the end");
  add("bad_overlap", gguf_bytes{}
                         .header(2, 0)
                         .tensor("a", f32, {16}, 0)
                         .tensor("b", f32, {16}, 32)
                         .pad_to(32)
                         .fill(128),
      "overlap");
  add("bad_duplicate_tensor", gguf_bytes{}
                                  .header(2, 0)
                                  .tensor("a", f32, {8}, 0)
                                  .tensor("a", f32, {8}, 32)
                                  .pad_to(32)
                                  .fill(64),
      "duplicate tensor name 'a'");
  add("bad_truncated_tensor_info", gguf_bytes{}.header(1, 0).str("t").u32(4).u64(4).u64(4).u64(4),
      "truncated file");
  add("bad_data_section_missing", gguf_bytes{}.header(1, 0).tensor("t", f32, {1}, 0),
      "extends past the end");
  return cs;
}

}  // namespace ordo::gguf::test
