// `ordo convert` (the CLI) turns the tiny official-layout checkpoint into a GGUF that llama.cpp's
// deepseek4 loader (the prebuilt oracle, oracles.md §1) accepts and evaluates to finite logits,
// in ds4's default types (q8_0 / f16 / lossless mxfp4 experts) and all-f32. llama.cpp checks
// every name, shape, type and metadata key independently of ordo's own tensor map.
#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "tiny_checkpoint.hpp"

namespace ordo::convert {
namespace {

using namespace testing;

int sh(const std::string& cmd) {
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

void write_official_checkpoint(const std::filesystem::path& dir) {
  const tiny_dims d;
  std::mt19937 rng(3);
  std::vector<st_entry> entries;
  for (const auto& w : tiny_weights(d)) {
    const auto t = make_official(rng, w, d.E);
    auto shape = w.shape;
    if (w.official == src_kind::fp4) shape[1] /= 2;
    entries.push_back({w.upstream, dtype_of(w.official), shape, t.data});
    const auto base = w.upstream.substr(0, w.upstream.size() - 7);
    if (w.official == src_kind::fp8) entries.push_back({base + ".scale", "F8_E8M0", fp8_scale_shape(w.shape), t.scale});
    if (w.official == src_kind::fp4) entries.push_back({base + ".scale", "F8_E8M0", {w.shape[0], w.shape[1] / 32}, t.scale});
  }
  write_safetensors(dir / "model.safetensors", entries);
  write_text(dir / "config.json", official_config(d));
}

// The ORDL file of llama_driver: "ORDL", u32 version, u32 n_pos, u32 n_vocab, then floats.
std::vector<float> read_logits(const std::filesystem::path& p, std::uint32_t& n_pos, std::uint32_t& n_vocab) {
  std::ifstream in(p, std::ios::binary);
  char magic[4];
  std::uint32_t version = 0;
  in.read(magic, 4);
  in.read(reinterpret_cast<char*>(&version), 4);
  in.read(reinterpret_cast<char*>(&n_pos), 4);
  in.read(reinterpret_cast<char*>(&n_vocab), 4);
  std::vector<float> v(static_cast<std::size_t>(n_pos) * n_vocab);
  in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * 4));
  EXPECT_TRUE(in.good()) << p;
  return v;
}

class convert_llama : public ::testing::TestWithParam<const char*> {};

TEST_P(convert_llama, loads_and_runs) {
  temp_dir dir("llama");
  write_official_checkpoint(dir.path);
  const auto gguf = dir.path / "out.gguf";
  const std::string convert = std::string(ORDO_BIN) + " convert -q --vocab bytes " + GetParam() + " " + dir.path.string() + " -o " +
                              gguf.string();
  ASSERT_EQ(sh(convert), 0) << convert;
  const auto logits = dir.path / "out.ordl";
  const std::string run = std::string(LLAMA_DRIVER) + " -m " + gguf.string() + " -t 1,5,9,13,17,21,25,29 -o " +
                          logits.string();
  ASSERT_EQ(sh(run), 0) << run;
  std::uint32_t n_pos = 0, n_vocab = 0;
  const auto v = read_logits(logits, n_pos, n_vocab);
  EXPECT_EQ(n_pos, 8u);
  EXPECT_EQ(n_vocab, 512u);
  for (float x : v) ASSERT_TRUE(std::isfinite(x));
}

INSTANTIATE_TEST_SUITE_P(types, convert_llama,
                         ::testing::Values("", "--dense f32 --aux f32 --experts f32"),
                         [](const auto& info) { return info.index == 0 ? std::string("ds4_types") : std::string("f32"); });

}  // namespace
}  // namespace ordo::convert
