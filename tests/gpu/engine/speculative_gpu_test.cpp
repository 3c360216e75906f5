// Exact MTP speculation on the GPU (issue 13; tests mirror include/ordo/runtime/speculative.hpp
// and mtp_block.hpp on the gpu executor, and src/eval/engine_backend.hpp's gpu backend). On the
// trained tiny model (models/tiny-ds4), each test one completion so the device run can start
// them side by side:
//  - hash gates: an 800-token completion on a GPU session, at T = 0 and at T = 0.8 seed 1234,
//    with speculation off and on, must give the digest recorded from the CPU engine's plain
//    decoding (tests/unit/runtime/spec_completion.hpp), so on == off == the CPU's; with
//    speculation on, the drafts must be the CPU engine's too (the MTP block's bits on the GPU);
//  - the gpu backend through `ordo generate`'s code path (generate::run, --backend gpu):
//    speculation on and off write the same text; generation tokens/s of both and the acceptance
//    stats are printed (measurements, not asserted);
//  - without a device too: this build's deferred executor gives the recorded 100-token digests and
//    its cpu backend speculates with the text of speculation off.
// ORDO_ENGINE_GPU_MEMORY=pinned puts the GPU sessions' arenas in pinned host memory instead of
// managed memory. Without a device every GPU test skips.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "generate/generate.hpp"
#include "ordo/runtime/device_memory.hpp"
#include "unit/runtime/spec_completion.hpp"

namespace ordo::runtime {
namespace {

#define ORDO_REQUIRE_GPU()                                                                                  \
  if (!device::present())                                                                                   \
  GTEST_SKIP() << "no GPU device here (runtime::device::present() is false): the GPU speculation tests run " \
                  "on the device machine"

memory_kind gpu_memory() {
  const char* m = std::getenv("ORDO_ENGINE_GPU_MEMORY");
  return m && std::string(m) == "pinned" ? memory_kind::pinned : memory_kind::managed;
}
const char* gpu_memory_name() { return gpu_memory() == memory_kind::pinned ? "pinned" : "managed"; }

std::filesystem::path model_dir() {
  // The device machine runs the binary in its own copy of the repository: ORDO_SOURCE_DIR says where.
  const char* d = std::getenv("ORDO_SOURCE_DIR");
  return std::filesystem::path(d ? d : ORDO_SOURCE_DIR) / "models" / "tiny-ds4";
}

const model_weights& tiny() {
  static const model_weights w = model_weights::open(model_dir() / "tiny-ds4.gguf", model_dir() / "tiny-ds4-mtp.gguf");
  return w;
}

void gate(float temperature, bool speculate, const char* recorded, const char* recorded_drafts) {
  test::spec_completion_options c;
  c.temperature = temperature;
  c.speculate = speculate;
  c.tokens = 800;
  c.executor = executor_kind::gpu;
  c.memory = gpu_memory();
  const test::spec_completion r = test::run_spec_completion(tiny(), c);
  std::printf("[spec_gpu] T = %.1f, 800 tokens, speculation %s, %s arenas: digest %s (recorded cpu %s); %.1f tokens/s "
              "(%.2f s)\n",
              double(temperature), speculate ? "on" : "off", gpu_memory_name(), r.digest.c_str(), recorded,
              800.0 / r.generation_seconds, r.generation_seconds);
  EXPECT_EQ(r.digest, recorded);
  if (speculate) {
    std::printf("[spec_gpu] drafts digest %s (recorded cpu %s)\n%s", r.drafts_digest.c_str(), recorded_drafts,
                format_spec_stats(r.stats).c_str());
    EXPECT_EQ(r.drafts_digest, recorded_drafts);
    EXPECT_GT(double(r.stats.committed) / double(r.stats.rounds), 1.5);  // "on" was not "off"
  }
}

TEST(speculative_gpu, greedy_800_tokens_off) {
  ORDO_REQUIRE_GPU();
  gate(0.0f, false, test::recorded_spec_t0, nullptr);
}
TEST(speculative_gpu, greedy_800_tokens_on) {
  ORDO_REQUIRE_GPU();
  gate(0.0f, true, test::recorded_spec_t0, test::recorded_spec_t0_drafts);
}
TEST(speculative_gpu, sampled_t08_800_tokens_off) {
  ORDO_REQUIRE_GPU();
  gate(0.8f, false, test::recorded_spec_t08, nullptr);
}
TEST(speculative_gpu, sampled_t08_800_tokens_on) {
  ORDO_REQUIRE_GPU();
  gate(0.8f, true, test::recorded_spec_t08, test::recorded_spec_t08_drafts);
}

/// `ordo generate --backend BACKEND --spec MODE --tokens N` on the tiny model, greedy.
std::pair<std::string, generate::stats> generate_on(const std::string& backend, const std::string& mode, int tokens) {
  generate::options o;
  o.model = model_dir() / "tiny-ds4.gguf";
  o.mtp_model = model_dir() / "tiny-ds4-mtp.gguf";
  o.backend = backend;
  o.prompt = "Explain what the grep command does.";
  o.max_tokens = tokens;
  o.context = 1024;
  o.spec.mode = mode;
  std::string text;
  generate::events ev;
  ev.text = [&text](std::string_view s) { text += s; };
  generate::stats st = generate::run(o, ev);
  return {text, st};
}

// Runs without a device (and beside the gates on it): this build's entries on the deferred
// executor give the recorded 100-token digests (committed stream and drafts), and its cpu backend
// speculates through generate::run with the text of speculation off — the harness and the binary
// checked before the device run.
TEST(speculative_gpu, this_builds_deferred_executor_and_cpu_backend_give_the_recorded_bits) {
  test::spec_completion_options c;
  c.speculate = true;
  c.tokens = 100;
  c.executor = executor_kind::deferred;
  const test::spec_completion r = test::run_spec_completion(tiny(), c);
  EXPECT_EQ(r.digest, test::recorded_spec_t0_100);
  EXPECT_EQ(r.drafts_digest, test::recorded_spec_t0_100_drafts);
  const auto [off_text, off] = generate_on("cpu", "off", 40);
  const auto [on_text, on] = generate_on("cpu", "mtp", 40);
  EXPECT_EQ(on_text, off_text);
  EXPECT_TRUE(on.spec.has_value());
  std::printf("[spec_gpu] this build, deferred executor: digest %s, drafts %s; cpu backend 40 tokens on == off: %s\n",
              r.digest.c_str(), r.drafts_digest.c_str(), on_text == off_text ? "yes" : "NO");
}

TEST(speculative_gpu, gpu_backend_generates_the_same_text_with_speculation_on_and_off) {
  ORDO_REQUIRE_GPU();
  int n = 300;
  if (const char* e = std::getenv("ORDO_SPEC_GPU_TOKENS")) n = std::atoi(e);
  const auto [off_text, off] = generate_on("gpu", "off", n);
  const auto [on_text, on] = generate_on("gpu", "mtp", n);
  EXPECT_EQ(on_text, off_text);
  ASSERT_TRUE(on.spec.has_value());  // --spec mtp on the gpu backend: no refusal
  EXPECT_FALSE(off.spec.has_value());
  const auto rate = [](const generate::stats& s) { return double(s.decode_steps) / s.decode_seconds; };
  std::printf("[spec_gpu] gpu backend, tiny-ds4, greedy, %zu tokens generated (%zu decode steps): speculation off %.1f "
              "tokens/s, on %.1f tokens/s (%.2fx); same text: %s\n",
              off.generated_tokens, off.decode_steps, rate(off), rate(on), rate(on) / rate(off),
              on_text == off_text ? "yes" : "NO");
  std::printf("%s", format_spec_stats(*on.spec).c_str());
  std::printf("[spec_gpu] text: %s\n", off_text.substr(0, 200).c_str());
}

}  // namespace
}  // namespace ordo::runtime
