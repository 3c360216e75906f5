// Reader validation: every hand-built image in gguf_cases.hpp loads (ok_*) or fails with the
// message that names its problem (bad_*); plus accessors and opening real files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "gguf_cases.hpp"
#include "ordo/model/gguf.hpp"

namespace ordo::gguf {
namespace {

TEST(gguf_reader, cases_load_or_fail_with_their_message) {
  for (const auto& c : test::gguf_cases()) {
    SCOPED_TRACE(c.name);
    if (c.expect_error.empty()) {
      EXPECT_NO_THROW((void)file::from_bytes(c.bytes, c.name));
      continue;
    }
    try {
      (void)file::from_bytes(c.bytes, c.name);
      ADD_FAILURE() << "loaded, expected an error containing '" << c.expect_error << "'";
    } catch (const error& e) {
      const std::string msg = e.what();
      EXPECT_EQ(msg.rfind(c.name + ": ", 0), 0u) << "message must start with the file name: " << msg;
      EXPECT_NE(msg.find(c.expect_error), std::string::npos)
          << "message '" << msg << "' lacks '" << c.expect_error << "'";
    }
  }
}

const test::gguf_case& find_case(const std::string& name) {
  static const auto cases = test::gguf_cases();
  for (const auto& c : cases)
    if (c.name == name) return c;
  throw std::runtime_error("no case " + name);
}

TEST(gguf_reader, reads_fields_of_a_hand_built_file) {
  const auto f = file::from_bytes(find_case("ok_alignment_64").bytes, "x");
  EXPECT_EQ(f.version(), 3u);
  EXPECT_EQ(f.alignment(), 64u);
  // 24 header + 33 kv + 2 x 41 tensor infos = 139 → next multiple of 64.
  EXPECT_EQ(f.data_offset(), 192u);
  ASSERT_EQ(f.tensors().size(), 2u);
  const auto& b = f.tensor("b");
  EXPECT_EQ(b.type, ggml_type::q8_0);
  EXPECT_EQ(b.dims, (std::vector<uint64_t>{32, 2}));
  EXPECT_EQ(b.offset, 128u);
  EXPECT_EQ(b.nbytes, 68u);
  EXPECT_EQ(b.elements(), 64u);
  EXPECT_EQ(b.data, f.bytes().data() + 192 + 128);
  EXPECT_EQ(f.find_tensor("nope"), nullptr);
  EXPECT_EQ(f.get_u32("general.alignment"), 64u);
}

TEST(gguf_reader, nested_arrays) {
  const auto f = file::from_bytes(find_case("ok_nested_array").bytes, "x");
  const value& v = f.at("x.nested");
  ASSERT_EQ(v.element_type(), value_type::array);
  ASSERT_EQ(v.items().size(), 2u);
  EXPECT_EQ(v.items()[0].to_vector<uint32_t>(), (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(v.items()[1].to_vector<std::string>(), (std::vector<std::string>{"hi"}));
}

TEST(gguf_reader, getters_name_path_key_and_types) {
  const auto f = file::from_bytes(find_case("ok_one_tensor").bytes, "m.gguf");
  EXPECT_EQ(f.get_string("general.architecture"), "test");
  try {
    (void)f.get_u32("general.architecture");
    FAIL();
  } catch (const error& e) {
    EXPECT_STREQ(e.what(), "m.gguf: metadata key 'general.architecture': expected u32 (any "
                           "integer type), found string");
  }
  try {
    (void)f.get_f32("missing.key");
    FAIL();
  } catch (const error& e) {
    EXPECT_STREQ(e.what(), "m.gguf: metadata key 'missing.key' is missing");
  }
  try {
    (void)f.tensor("w");
    FAIL();
  } catch (const error& e) {
    EXPECT_STREQ(e.what(), "m.gguf: tensor 'w' is missing");
  }
}

TEST(gguf_reader, open_maps_a_file_and_reports_missing_ones) {
  const auto dir = std::filesystem::temp_directory_path() / "ordo_gguf_reader_test";
  std::filesystem::create_directories(dir);
  const auto path = dir / "one.gguf";
  const auto& c = find_case("ok_one_tensor");
  {
    std::ofstream o(path, std::ios::binary);
    o.write(reinterpret_cast<const char*>(c.bytes.data()), std::streamsize(c.bytes.size()));
  }
  const auto f = file::open(path);
  EXPECT_EQ(f.name(), path.string());
  const auto& t = f.tensor("t");
  ASSERT_EQ(t.nbytes, 16u);
  for (auto b : t.bytes()) EXPECT_EQ(b, std::byte{0x3f});
  try {
    (void)file::open(dir / "absent.gguf");
    FAIL();
  } catch (const error& e) {
    EXPECT_EQ(std::string(e.what()).rfind((dir / "absent.gguf").string() + ": cannot open", 0), 0u)
        << e.what();
  }
  // An empty file is a truncation, not an mmap failure.
  const auto empty = dir / "empty.gguf";
  std::ofstream(empty).close();
  EXPECT_THROW((void)file::open(empty), error);
  std::filesystem::remove_all(dir);
}

TEST(gguf_reader, file_is_movable_and_data_stays_valid) {
  auto f = file::from_bytes(find_case("ok_one_tensor").bytes, "x");
  const std::byte* data = f.tensor("t").data;
  file g = std::move(f);
  EXPECT_EQ(g.tensor("t").data, data);
  EXPECT_EQ(g.tensor("t").bytes()[0], std::byte{0x3f});
}

}  // namespace
}  // namespace ordo::gguf
