// gguf::writer: streaming order and size checks, progress hook, partial files, refusals that
// name what is wrong.
#include <gtest/gtest.h>
#include <unistd.h>

#include <sys/resource.h>

#include <cstdlib>
#include <filesystem>

#include "ordo/model/gguf.hpp"

namespace ordo::gguf {
namespace {

namespace fs = std::filesystem;

struct temp_dir {
  fs::path path = fs::temp_directory_path() / ("ordo_gguf_writer_" + std::to_string(::getpid()));
  temp_dir() { fs::create_directories(path); }
  ~temp_dir() { fs::remove_all(path); }
};

std::vector<tensor_spec> two_tensors() {
  return {{"a", ggml_type::f32, {3}}, {"b", ggml_type::q8_0, {64, 2}}};  // 12 and 136 bytes
}

std::string error_of(auto&& f) {
  try {
    f();
  } catch (const error& e) {
    return e.what();
  }
  return "no error";
}

TEST(gguf_writer, layout_is_aligned_and_packed) {
  temp_dir d;
  writer w(d.path / "m.gguf", {{"general.alignment", value::u32(64)}}, two_tensors());
  EXPECT_EQ(w.alignment(), 64u);
  ASSERT_EQ(w.layout().size(), 2u);
  EXPECT_EQ(w.layout()[0].offset, 0u);
  EXPECT_EQ(w.layout()[0].nbytes, 12u);
  EXPECT_EQ(w.layout()[1].offset, 64u);
  EXPECT_EQ(w.layout()[1].nbytes, 136u);
  EXPECT_EQ(w.data_offset() % 64, 0u);
  EXPECT_EQ(w.file_size(), w.data_offset() + 64 + 192);  // the last tensor is padded too
}

TEST(gguf_writer, refuses_out_of_order_and_wrong_sizes) {
  temp_dir d;
  const auto path = d.path / "m.gguf";
  writer w(path, {}, two_tensors());
  const std::string p = path.string();
  EXPECT_EQ(error_of([&] { w.begin_tensor("b"); }),
            p + ": begin_tensor('b'): the next tensor in the table is 'a' (tensors are written in "
                "table order)");
  EXPECT_EQ(error_of([&] { w.write(std::vector<std::byte>(4)); }),
            p + ": write() outside begin_tensor/end_tensor");
  w.begin_tensor("a");
  EXPECT_EQ(error_of([&] { w.write(std::vector<std::byte>(13)); }),
            p + ": tensor 'a': write of 13 bytes exceeds its size (0 of 12 already written)");
  w.write(std::vector<std::byte>(5));
  EXPECT_EQ(error_of([&] { w.end_tensor(); }),
            p + ": tensor 'a': 5 bytes written, expected 12 (f32)");
  w.write(std::vector<std::byte>(7));
  w.end_tensor();
  EXPECT_EQ(error_of([&] { w.finish(); }),
            p + ": finish() after 1 of 2 tensors; next missing: 'b'");
}

TEST(gguf_writer, unfinished_writer_leaves_no_file) {
  temp_dir d;
  const auto path = d.path / "m.gguf";
  {
    writer w(path, {}, two_tensors());
    EXPECT_TRUE(fs::exists(d.path / "m.gguf.partial"));
    w.write_tensor("a", std::vector<std::byte>(12));
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(d.path / "m.gguf.partial"));
}

TEST(gguf_writer, refuses_invalid_tables_and_metadata) {
  temp_dir d;
  const auto path = d.path / "m.gguf";
  const std::string p = path.string();
  EXPECT_EQ(error_of([&] { writer(path, {}, {{"a", ggml_type::q4_k, {100}}}); }),
            p + ": tensor 'a': ne0 = 100 is not a multiple of the block size 256 of type q4_K");
  EXPECT_EQ(error_of([&] {
              writer(path, {}, {{"a", ggml_type::f32, {1}}, {"a", ggml_type::f32, {1}}});
            }),
            p + ": duplicate tensor 'a'");
  EXPECT_EQ(error_of([&] { writer(path, {}, {{std::string(64, 'x'), ggml_type::f32, {1}}}); }),
            p + ": tensor '" + std::string(64, 'x') + "': name longer than 63 bytes");
  EXPECT_EQ(error_of([&] { writer(path, {{"k", value::u8(1)}, {"k", value::u8(2)}}, {}); }),
            p + ": duplicate metadata key 'k'");
  EXPECT_EQ(error_of([&] { writer(path, {{"general.alignment", value::u64(32)}}, {}); }),
            p + ": metadata key 'general.alignment' must be u32, found u64");
  EXPECT_EQ(error_of([&] { writer(path, {{"general.alignment", value::u32(24)}}, {}); }),
            p + ": metadata key 'general.alignment' = 24 is not a power of two");
  EXPECT_FALSE(fs::exists(d.path / "m.gguf.partial"));
  EXPECT_FALSE(fs::exists(path));
}

TEST(gguf_writer, progress_hook_sees_every_tensor_end_and_the_finish) {
  temp_dir d;
  writer w(d.path / "m.gguf", {}, two_tensors());
  std::vector<write_progress> seen;
  std::vector<std::string> names;
  w.on_progress([&](const write_progress& p) {
    seen.push_back(p);
    names.emplace_back(p.tensor_name);
  }, /*every_bytes=*/50);
  w.write_tensor("a", std::vector<std::byte>(12));
  w.write_tensor("b", [](uint64_t, std::span<std::byte> out) {
    std::fill(out.begin(), out.end(), std::byte{1});
  }, /*chunk_bytes=*/40);
  w.finish();
  // a: 12 bytes < 50, so only its end. b (136 bytes in chunks of 40): 40 → no, 80 → hook,
  // 40 → no, 56 → hook, then its end. Then finish.
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "b", "b", ""}));
  ASSERT_EQ(seen.size(), 5u);
  EXPECT_EQ(seen.back().tensor_index, 2u);
  EXPECT_EQ(seen.back().tensor_count, 2u);
  EXPECT_EQ(seen.back().bytes_written, w.file_size());
  EXPECT_EQ(seen.back().bytes_total, w.file_size());
  EXPECT_TRUE(names.back().empty());
  for (std::size_t i = 1; i < seen.size(); ++i)
    EXPECT_GE(seen[i].bytes_written, seen[i - 1].bytes_written);
  const auto f = file::open(d.path / "m.gguf");
  for (auto b : f.tensor("b").bytes()) ASSERT_EQ(b, std::byte{1});
}

TEST(gguf_writer, empty_model_is_a_valid_file) {
  const auto bytes = writer::to_bytes({}, {}, {});
  EXPECT_EQ(bytes.size(), 24u);  // like ggml: no padding when no tensor data follows
  const auto f = file::from_bytes(bytes);
  EXPECT_TRUE(f.metadata().empty());
  EXPECT_TRUE(f.tensors().empty());
}

long peak_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

// Streaming: the writer holds one chunk, never a tensor. 32 MiB by default (about a second at
// most); ORDO_GGUF_BIG_MIB=<n> writes n MiB (e.g. 160000 for a DS4-sized file) in 8 tensors.
TEST(gguf_writer, streams_large_tensors_in_bounded_memory) {
  uint64_t mib = 32;
  if (const char* e = std::getenv("ORDO_GGUF_BIG_MIB")) mib = std::strtoull(e, nullptr, 10);
  const uint64_t per_tensor = mib / 8 * (uint64_t{1} << 20);
  temp_dir d;
  const auto path = d.path / "big.gguf";
  std::vector<tensor_spec> specs;
  for (int i = 0; i < 8; ++i)  // q8_0 rows of 4096 values: 128 blocks of 34 bytes = 4352 bytes
    specs.push_back({"blk." + std::to_string(i) + ".w", ggml_type::q8_0,
                     {4096, per_tensor / (128 * 34)}});
  // The byte at tensor offset x of tensor i: a pattern the reader can check without a copy.
  auto pattern = [](int i, uint64_t x) { return std::byte(uint8_t((x * 131 + i * 7) ^ (x >> 12))); };
  const long rss_before = peak_rss_kib();
  {
    writer w(path, {{"general.architecture", value::string("big")}}, specs);
    for (int i = 0; i < 8; ++i)
      w.write_tensor(specs[std::size_t(i)].name, [&](uint64_t at, std::span<std::byte> out) {
        for (std::size_t k = 0; k < out.size(); ++k) out[k] = pattern(i, at + k);
      }, std::size_t{4} << 20);
    w.finish();
  }
  const long grown_kib = peak_rss_kib() - rss_before;
  EXPECT_LT(grown_kib, 64 * 1024) << "writer peak memory grew by " << grown_kib << " KiB";
  const auto f = file::open(path);
  for (int i = 0; i < 8; ++i) {
    const auto b = f.tensor(specs[std::size_t(i)].name).bytes();
    for (uint64_t x = 0; x < b.size(); x += 4093) ASSERT_EQ(b[x], pattern(i, x)) << i << " @" << x;
    ASSERT_EQ(b.back(), pattern(i, b.size() - 1));
  }
}

}  // namespace
}  // namespace ordo::gguf
