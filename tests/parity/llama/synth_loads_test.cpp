// ordo synth files load in llama.cpp's deepseek4 loader (the prebuilt oracle, oracles.md §1) and
// evaluate to finite, non-degenerate logits. The logits come from llama.cpp, not from ordo, so
// the test can fail on our side: wrong names, shapes, types or metadata make llama.cpp refuse the
// file, and a badly conditioned recipe gives NaN/inf or collapsed logits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <numeric>
#include <string>

#include "ordl.hpp"

namespace {

namespace fs = std::filesystem;

fs::path scratch() {
  const fs::path dir = fs::temp_directory_path() / ("ordo_synth_loads_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

// Removes the scratch folder after the last test, failed ones included.
struct scratch_cleanup : ::testing::Environment {
  void TearDown() override { fs::remove_all(scratch()); }
};
[[maybe_unused]] auto* const cleanup = ::testing::AddGlobalTestEnvironment(new scratch_cleanup);

int sh(const std::string& cmd) {
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string token_list(int first, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += (i ? "," : "") + std::to_string(first + (i * 37) % 250);
  return s;
}

struct config {
  const char* name;
  const char* synth_args;
  const char* driver_args;
  int n_tokens;
};

// Per-position logit spread and distinct argmaxes: random-weight models whose activations blow up
// or die give NaNs, identical rows or a constant argmax.
void expect_healthy(const ordo::parity::ordl& o, const std::string& what) {
  ASSERT_GT(o.n_pos, 0u) << what;
  std::size_t non_finite = 0;
  for (float v : o.logits) non_finite += !std::isfinite(v);
  ASSERT_EQ(non_finite, 0u) << what;
  std::vector<int> argmax(o.n_pos);
  for (uint32_t p = 0; p < o.n_pos; ++p) {
    const float* r = o.row(p);
    double mean = 0, sq = 0;
    for (uint32_t i = 0; i < o.n_vocab; ++i) mean += r[i];
    mean /= o.n_vocab;
    for (uint32_t i = 0; i < o.n_vocab; ++i) sq += (r[i] - mean) * (r[i] - mean);
    const double sd = std::sqrt(sq / o.n_vocab);
    EXPECT_GT(sd, 0.2) << what << " position " << p << ": logits nearly constant";
    EXPECT_LT(sd, 20.0) << what << " position " << p << ": logits blown up";
    argmax[p] = int(std::max_element(r, r + o.n_vocab) - r);
  }
  std::sort(argmax.begin(), argmax.end());
  const auto distinct = std::unique(argmax.begin(), argmax.end()) - argmax.begin();
  EXPECT_GE(distinct, std::min<long>(3, o.n_pos)) << what << ": argmax barely depends on the input";
}

class synth_loads : public ::testing::TestWithParam<config> {};

TEST_P(synth_loads, in_llama_cpp) {
  const config& c = GetParam();
  const fs::path dir = scratch();
  const fs::path model = dir / (std::string(c.name) + ".gguf");
  const fs::path logits = dir / (std::string(c.name) + ".ordl");
  ASSERT_EQ(sh(std::string(ORDO_BIN) + " synth -q --seed 7 " + c.synth_args + " -o " + model.string()), 0)
      << "ordo synth " << c.synth_args;
  const std::string run = std::string(LLAMA_DRIVER) + " -m " + model.string() + " " + c.driver_args + " -t " +
                          token_list(3, c.n_tokens) + " -o " + logits.string();
  ASSERT_EQ(sh(run), 0) << run;
  const auto o = ordo::parity::read_ordl(logits.string());
  EXPECT_EQ(o.n_pos, uint32_t(c.n_tokens));
  expect_healthy(o, c.name);
  fs::remove_all(dir);
}

// tiny = oracles.md §1's shape; K-quant experts need rows of 256, hence the wider expert FFN.
INSTANTIATE_TEST_SUITE_P(
    configs, synth_loads,
    ::testing::Values(
        config{"ds4_f32", "--naming ds4", "", 300},  // ≥ 300 tokens: ratio-128 rows exist
        config{"llama_mtp_q8_mxfp4", "--naming llama --mtp --dense q8_0 --experts mxfp4", "--load-mtp", 40},
        config{"ds4_mtp_sidecar", "--naming ds4 --mtp", "", 24},  // llama.cpp ignores the sidecar
        config{"f16_q8", "--dense f16 --experts q8_0", "", 24},
        config{"bf16", "--dense bf16 --experts bf16", "", 24},
        config{"q4k", "--dense q8_0 --experts q4_k --set expert_feed_forward_length=256", "", 24},
        config{"q2k", "--experts q2_k --set expert_feed_forward_length=256", "", 24},
        config{"iq2xxs", "--experts iq2_xxs --set expert_feed_forward_length=256", "", 24},
        // Flash depth (43 layers, DS4 schedule) at tiny width: the recipe keeps logits healthy.
        config{"depth43", "--set block_count=43 --dense f16 --experts q8_0", "", 24},
        config{"deepseek_vocab", "--vocab deepseek --dense f16", "", 12},  // the real 129,280 tokens
        config{"five_layers", "--set block_count=5 --set attention.compress_ratios=0,4,128,4,128 "
                              "--set expert_count=8 --set expert_used_count=3 --set hash_layer_count=2", "", 24}),
    [](const auto& info) { return std::string(info.param.name); });

// llama.cpp's MTP block runs on a synth file (llama naming) and gives healthy logits of its own.
TEST(llama_driver, mtp_block_evaluates) {
  const fs::path dir = scratch();
  const fs::path model = dir / "mtp.gguf";
  ASSERT_EQ(sh(std::string(ORDO_BIN) + " synth -q --seed 3 --naming llama --mtp -o " + model.string()), 0);
  ASSERT_EQ(sh(std::string(LLAMA_DRIVER) + " -m " + model.string() + " --load-mtp -t " + token_list(9, 32) + " -o " +
               (dir / "main.ordl").string() + " --mtp-out " + (dir / "mtp.ordl").string() + " > /dev/null"),
            0);
  const auto main = ordo::parity::read_ordl((dir / "main.ordl").string());
  const auto mtp = ordo::parity::read_ordl((dir / "mtp.ordl").string());
  ASSERT_EQ(mtp.tokens, main.tokens);
  expect_healthy(mtp, "mtp");
  float diff = 0;
  for (std::size_t i = 0; i < mtp.logits.size(); ++i) diff = std::max(diff, std::abs(mtp.logits[i] - main.logits[i]));
  EXPECT_GT(diff, 0.1f) << "MTP logits equal the main model's: the MTP block did not run";
  fs::remove_all(dir);
}

// The driver feeds a prompt as one batch or token by token; on an all-F32 model with an F32 cache
// llama.cpp's two paths agree to ~2e-6 (oracles.md §1). A loose 1e-3 still catches a driver that
// mixes up positions or rows.
TEST(llama_driver, batch_equals_token_by_token) {
  const fs::path dir = scratch();
  const fs::path model = dir / "tiny.gguf";
  ASSERT_EQ(sh(std::string(ORDO_BIN) + " synth -q --seed 11 -o " + model.string()), 0);
  const std::string tokens = token_list(5, 8);
  for (const char* mode : {"batch", "token"})
    ASSERT_EQ(sh(std::string(LLAMA_DRIVER) + " -m " + model.string() + " --mode " + mode + " -t " + tokens +
                 " --greedy 2 -o " + (dir / (std::string(mode) + ".ordl")).string() + " > /dev/null"),
              0);
  const auto b = ordo::parity::read_ordl((dir / "batch.ordl").string());
  const auto t = ordo::parity::read_ordl((dir / "token.ordl").string());
  ASSERT_EQ(b.n_pos, 10u);
  ASSERT_EQ(b.tokens, t.tokens);  // same greedy continuation
  float worst = 0;
  for (std::size_t i = 0; i < b.logits.size(); ++i) worst = std::max(worst, std::abs(b.logits[i] - t.logits[i]));
  EXPECT_LT(worst, 1e-3f);
  // Greedy tokens are the argmax of the previous row.
  for (uint32_t p = 8; p < b.n_pos; ++p) {
    const float* r = b.row(p - 1);
    EXPECT_EQ(b.tokens[p], int(std::max_element(r, r + b.n_vocab) - r)) << "position " << p;
  }
  fs::remove_all(dir);
}

}  // namespace
