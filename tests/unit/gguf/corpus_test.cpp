// Replays every file of corpus/ (hand-built cases, writer seeds, fuzzer finds) through the reader:
// each must load or throw gguf::error, never crash (run it under the cpu-asan preset too).
// ok_* must load, bad_* must throw; what loads is also written back and re-read unchanged.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "gguf_cases.hpp"
#include "ordo/model/gguf.hpp"

namespace ordo::gguf {
namespace {

namespace fs = std::filesystem;

std::vector<std::byte> slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(chars.size());
  if (!chars.empty()) std::memcpy(out.data(), chars.data(), chars.size());
  return out;
}

std::vector<fs::path> corpus_files() {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(ORDO_GGUF_CORPUS_DIR))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

// What the fuzzer asserts too: a file that loads survives a write → read round trip.
void rewrite_and_compare(const file& f) {
  std::vector<tensor_spec> specs;
  std::vector<std::vector<std::byte>> data;
  for (const auto& t : f.tensors()) {
    specs.push_back({t.name, t.type, t.dims});
    data.emplace_back(t.bytes().begin(), t.bytes().end());
  }
  const file g = file::from_bytes(writer::to_bytes(f.metadata(), specs, data), "rewritten");
  EXPECT_EQ(g.metadata(), f.metadata());
  ASSERT_EQ(g.tensors().size(), f.tensors().size());
  for (std::size_t i = 0; i < specs.size(); ++i) {
    EXPECT_EQ(g.tensors()[i].name, specs[i].name);
    EXPECT_EQ(g.tensors()[i].dims, specs[i].dims);
    const auto b = g.tensors()[i].bytes();
    EXPECT_TRUE(std::equal(b.begin(), b.end(), data[i].begin(), data[i].end()));
  }
}

TEST(gguf_corpus, every_file_loads_or_throws_gguf_error) {
  const auto files = corpus_files();
  ASSERT_GE(files.size(), 40u) << "corpus missing under " << ORDO_GGUF_CORPUS_DIR;
  for (const auto& p : files) {
    const std::string name = p.filename().string();
    SCOPED_TRACE(name);
    bool loaded = false;
    try {
      const file f = file::open(p);
      loaded = true;
      for (const auto& kv : f.metadata()) (void)kv.val.render();
      uint64_t sum = 0;  // touch every tensor byte: they must all be inside the mapping
      for (const auto& t : f.tensors())
        for (std::byte b : t.bytes()) sum += uint8_t(b);
      (void)sum;
      rewrite_and_compare(f);
    } catch (const error& e) {
      EXPECT_EQ(std::string(e.what()).rfind(p.string() + ": ", 0), 0u) << e.what();
    }
    if (name.rfind("ok_", 0) == 0) EXPECT_TRUE(loaded) << "must load";
    if (name.rfind("bad_", 0) == 0) EXPECT_FALSE(loaded) << "must be rejected";
  }
}

TEST(gguf_corpus, committed_cases_match_the_generator) {
  for (const auto& c : test::gguf_cases()) {
    const fs::path p = fs::path(ORDO_GGUF_CORPUS_DIR) / (c.name + ".gguf");
    ASSERT_TRUE(fs::exists(p)) << p << " missing: rerun gguf_make_corpus";
    EXPECT_EQ(slurp(p), c.bytes) << p << " is stale: rerun gguf_make_corpus";
  }
}

// Deterministic mutations of the valid seeds: every prefix and every single-bit flip must load
// or throw gguf::error. A prefix that cuts into the header or tensor data must throw.
TEST(gguf_corpus, truncations_and_bit_flips_of_valid_files) {
  std::size_t parsed = 0;
  for (const auto& p : corpus_files()) {
    if (p.filename().string().rfind("ok_", 0) != 0) continue;
    SCOPED_TRACE(p.filename().string());
    const auto bytes = slurp(p);
    const file whole = file::from_bytes(bytes);
    uint64_t needed = 24;  // the header is always needed
    for (const auto& t : whole.tensors())
      needed = std::max<uint64_t>(needed, whole.data_offset() + t.offset + t.nbytes);
    if (whole.tensors().empty()) needed = bytes.size();  // metadata runs to the end
    for (std::size_t n = 0; n < bytes.size(); ++n) {
      std::vector<std::byte> cut(bytes.begin(), bytes.begin() + std::ptrdiff_t(n));
      bool loaded = false;
      try {
        (void)file::from_bytes(std::move(cut));
        loaded = true;
      } catch (const error&) {
      }
      if (n < needed) EXPECT_FALSE(loaded) << "prefix of " << n << " bytes loaded";
      ++parsed;
    }
    // Flips in tensor data change nothing the reader looks at: only the header is swept.
    const std::size_t header_bytes = std::min<std::size_t>(bytes.size(), whole.data_offset());
    for (std::size_t bit = 0; bit < header_bytes * 8; ++bit) {
      auto flipped = bytes;
      flipped[bit / 8] ^= std::byte(1u << (bit % 8));
      try {
        (void)file::from_bytes(std::move(flipped));
      } catch (const error&) {
      }
      ++parsed;
    }
  }
  EXPECT_GT(parsed, 10000u);
}

}  // namespace
}  // namespace ordo::gguf
