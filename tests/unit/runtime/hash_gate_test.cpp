// E5 hash gate (issue 11): SHA-256 of a 200-token greedy (T = 0) completion of the tiny synth
// model (ds4's type mix), prompt prefilled at chunk 5 and as one chunk, identical across those
// chunkings and across runs and builds of a preset: the digest recorded in completion_digest.hpp.
// It covers the generated token ids and the bits of every logit row of the completion. The GPU
// engine must print the same digest (tests/gpu/engine, E2 at model level).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "completion_digest.hpp"
#include "synth_files.hpp"

namespace ordo::runtime {
namespace {

TEST(hash_gate, greedy_completion_digest_is_recorded_and_chunk_independent) {
  static const auto m = test::write_tiny(model::ds4_naming::ds4, "hash_gate", gguf::ggml_type::q8_0, gguf::ggml_type::q8_0);
  const model_weights w = model_weights::open(m.main, m.mtp);
  const std::string a = test::completion_digest(w, 5), b = test::completion_digest(w, 0);
  std::printf("completion digest: %s\n", a.c_str());
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, test::recorded_completion_digest);
}

}  // namespace
}  // namespace ordo::runtime
