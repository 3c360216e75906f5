// The `ordo convert` command line: --dry-run prints the plan and writes nothing, a bad type flag
// is refused naming the flag, a missing --out is a usage error, and --help lists every option.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "tiny_checkpoint.hpp"

namespace ordo::convert {
namespace {

using namespace testing;

struct result {
  int rc;
  std::string out;  // stdout and stderr together
};

result run(const std::string& args) {
  const std::string cmd = std::string(ORDO_BIN) + " convert " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  while (p != nullptr && std::fgets(buf.data(), buf.size(), p) != nullptr) out += buf.data();
  const int status = p != nullptr ? pclose(p) : -1;
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

void write_hf_checkpoint(const std::filesystem::path& dir) {
  const tiny_dims d;
  std::mt19937 rng(9);
  std::vector<st_entry> entries;
  for (auto w : tiny_weights(d)) {
    if (w.official != src_kind::i64) w.official = src_kind::bf16;
    entries.push_back({w.upstream, dtype_of(w.official), w.shape, make_official(rng, w, d.E).data});
  }
  write_safetensors(dir / "model.safetensors", entries);
  write_text(dir / "config.json", hf_config(d));
}

TEST(ConvertCli, DryRunPrintsThePlanAndWritesNothing) {
  temp_dir dir("cli");
  write_hf_checkpoint(dir.path);
  const auto r = run("--dry-run --experts f16 -o " + (dir.path / "x.gguf").string() + " " + dir.path.string());
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("blk.3.ffn_down_exps.weight"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("f16    [64, 256, 4]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("blk.0.attn_q_a.weight"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(dir.path / "x.gguf"));
}

TEST(ConvertCli, BadFlagsAreRefused) {
  temp_dir dir("cli-bad");
  write_hf_checkpoint(dir.path);
  // A bad flag value is a usage error (exit 2, the flag named), as in every subcommand.
  auto r = run("--dense q4_0 -o " + (dir.path / "x.gguf").string() + " " + dir.path.string());
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("--dense: output type 'q4_0' is not one of q8_0, f16, bf16, f32"), std::string::npos) << r.out;
  r = run("--aux q8_0 -o " + (dir.path / "x.gguf").string() + " " + dir.path.string());
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("--aux"), std::string::npos) << r.out;
  r = run(dir.path.string());
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("--out is required"), std::string::npos) << r.out;
  r = run("-o " + (dir.path / "x.gguf").string() + " " + (dir.path / "nothing").string());
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.out.find("nothing: no such file or directory"), std::string::npos) << r.out;
}

TEST(ConvertCli, HelpListsEveryOption) {
  const auto r = run("--help");
  EXPECT_EQ(r.rc, 0);
  for (const char* opt : {"--out", "--config", "--dense", "--aux", "--experts", "--mtp-out", "--vocab",
                          "--tokenizer-json", "--name", "--dry-run", "--quiet"})
    EXPECT_NE(r.out.find(opt), std::string::npos) << opt;
}

}  // namespace
}  // namespace ordo::convert
