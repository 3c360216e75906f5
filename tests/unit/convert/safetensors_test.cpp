// The safetensors reader: round trips of every dtype, sharded checkpoints with an index, and the
// validation errors (each must name the file and the tensor).
#include "convert/safetensors.hpp"

#include <gtest/gtest.h>

#include "st_fixture.hpp"

namespace ordo::convert {
namespace {

using testing::bytes_of;
using testing::random_bytes;
using testing::st_entry;
using testing::temp_dir;
using testing::write_safetensors;

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "<no exception>";
}

TEST(Safetensors, ReadsEveryDtypeBackByteForByte) {
  temp_dir dir("st-roundtrip");
  std::mt19937 rng(1);
  const std::vector<std::pair<std::string, std::size_t>> dtypes = {
      {"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"I64", 8}, {"I32", 4}, {"I16", 2},
      {"I8", 1},  {"U8", 1},  {"BOOL", 1}, {"F8_E4M3", 1}, {"F8_E5M2", 1}, {"F8_E8M0", 1}};
  std::vector<st_entry> entries;
  for (std::size_t i = 0; i < dtypes.size(); ++i)
    entries.push_back({"t." + dtypes[i].first, dtypes[i].first, {3, static_cast<std::int64_t>(i + 1)},
                       random_bytes(rng, 3 * (i + 1) * dtypes[i].second)});
  entries.push_back({"empty", "F32", {0, 5}, {}});
  write_safetensors(dir.path / "model.safetensors", entries);

  const auto ck = checkpoint::open(dir.path / "model.safetensors");
  ASSERT_EQ(ck.tensors().size(), entries.size());
  for (const auto& e : entries) {
    const auto& t = ck.at(e.name);
    EXPECT_EQ(st_dtype_name(t.dtype), e.dtype);
    EXPECT_EQ(t.shape, e.shape);
    EXPECT_EQ(ck.read_all(t), e.data) << e.name;
  }
  // A slice from the middle.
  const auto& t = ck.at("t.F32");
  std::vector<std::byte> mid(4);
  ck.read(t, 4, mid);
  EXPECT_EQ(mid, std::vector<std::byte>(entries[1].data.begin() + 4, entries[1].data.begin() + 8));
  EXPECT_NE(message_of([&] { ck.read(t, t.nbytes - 2, mid); }).find("outside tensor 't.F32'"), std::string::npos);
}

TEST(Safetensors, ShardedCheckpointFollowsTheIndex) {
  temp_dir dir("st-index");
  std::mt19937 rng(2);
  const st_entry a{"a.weight", "F32", {2, 2}, random_bytes(rng, 16)};
  const st_entry b{"b.weight", "BF16", {4}, random_bytes(rng, 8)};
  write_safetensors(dir.path / "model-00001-of-00002.safetensors", {a});
  write_safetensors(dir.path / "model-00002-of-00002.safetensors", {b});
  testing::write_text(dir.path / "model.safetensors.index.json",
                      R"({"metadata": {}, "weight_map": {"a.weight": "model-00001-of-00002.safetensors",
                          "b.weight": "model-00002-of-00002.safetensors"}})");
  const auto ck = checkpoint::open(dir.path);
  EXPECT_EQ(ck.files().size(), 2u);
  EXPECT_EQ(ck.read_all(ck.at("a.weight")), a.data);
  EXPECT_EQ(ck.read_all(ck.at("b.weight")), b.data);
  EXPECT_EQ(ck.directory(), dir.path);

  // An index that maps a tensor to the wrong shard is rejected with both names.
  testing::write_text(dir.path / "model.safetensors.index.json",
                      R"({"weight_map": {"a.weight": "model-00002-of-00002.safetensors",
                          "b.weight": "model-00002-of-00002.safetensors"}})");
  const auto msg = message_of([&] { checkpoint::open(dir.path); });
  EXPECT_NE(msg.find("'a.weight'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("model-00002-of-00002.safetensors"), std::string::npos) << msg;
}

TEST(Safetensors, DirectoryWithoutIndexReadsEveryShard) {
  temp_dir dir("st-noindex");
  std::mt19937 rng(3);
  write_safetensors(dir.path / "x.safetensors", {{"x", "F32", {1}, random_bytes(rng, 4)}});
  write_safetensors(dir.path / "y.safetensors", {{"y", "F32", {1}, random_bytes(rng, 4)}});
  EXPECT_EQ(checkpoint::open(dir.path).tensors().size(), 2u);
  // The same name in two shards is ambiguous.
  write_safetensors(dir.path / "z.safetensors", {{"x", "F32", {1}, random_bytes(rng, 4)}});
  const auto msg = message_of([&] { checkpoint::open(dir.path); });
  EXPECT_NE(msg.find("'x'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("z.safetensors"), std::string::npos) << msg;
}

// Header validation: every message names the file label and the tensor.
TEST(Safetensors, HeaderValidationNamesFileAndTensor) {
  const auto err = [](const std::string& json, std::uint64_t data_size) {
    return message_of([&] { parse_safetensors_header(json, 100, data_size, "f.safetensors"); });
  };
  auto m = err(R"({"w": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 20]}})", 100);
  EXPECT_NE(m.find("f.safetensors: tensor 'w'"), std::string::npos) << m;
  EXPECT_NE(m.find("needs 24 bytes"), std::string::npos) << m;

  m = err(R"({"w": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}})", 20);
  EXPECT_NE(m.find("'w'"), std::string::npos) << m;
  EXPECT_NE(m.find("truncated"), std::string::npos) << m;

  m = err(R"({"w": {"dtype": "Q4", "shape": [2], "data_offsets": [0, 2]}})", 100);
  EXPECT_NE(m.find("unsupported dtype 'Q4'"), std::string::npos) << m;

  m = err(R"({"w": {"dtype": "F32", "shape": [2, -1], "data_offsets": [0, 8]}})", 100);
  EXPECT_NE(m.find("non-negative"), std::string::npos) << m;

  m = err(R"({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]},
              "b": {"dtype": "F32", "shape": [4], "data_offsets": [8, 24]}})", 100);
  EXPECT_NE(m.find("'a' and 'b' overlap"), std::string::npos) << m;

  m = err(R"({"w": {"dtype": "F32", "shape": [1]}})", 100);
  EXPECT_NE(m.find("'w'"), std::string::npos) << m;

  m = err("{not json", 100);
  EXPECT_NE(m.find("f.safetensors: safetensors header is not valid JSON"), std::string::npos) << m;
}

TEST(Safetensors, RejectsFilesThatAreNotSafetensors) {
  temp_dir dir("st-bad");
  testing::write_text(dir.path / "short.safetensors", "abc");
  EXPECT_NE(message_of([&] { checkpoint::open(dir.path / "short.safetensors"); }).find("too short"), std::string::npos);
  testing::write_text(dir.path / "huge.safetensors", std::string("\xff\xff\xff\xff\x00\x00\x00\x00{}", 10));
  const auto m = message_of([&] { checkpoint::open(dir.path / "huge.safetensors"); });
  EXPECT_NE(m.find("huge.safetensors: header length"), std::string::npos) << m;
  EXPECT_NE(message_of([&] { checkpoint::open(dir.path / "missing"); }).find("no such file"), std::string::npos);
}

}  // namespace
}  // namespace ordo::convert
