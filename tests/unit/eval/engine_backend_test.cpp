// The engine backends (src/eval/engine_backend.hpp) on the embedded tiny model: restart() starts
// a new sequence on the loaded weights — the same bits as a freshly opened backend, whatever the
// previous sequence was — and a CPU build has no gpu backend to open.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "eval/backend.hpp"
#include "eval/engine_backend.hpp"

namespace ordo::eval {
namespace {

backend_options tiny() {
  backend_options o;
  o.model = ORDO_TINY_MODEL;
  return o;
}

std::vector<float> feed(backend& b, const std::vector<int32_t>& tokens) { return b.prefill(tokens, logits_rows::last); }

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(engine_backend, cpu_restart_gives_the_bits_of_a_fresh_backend) {
  const std::vector<int32_t> first = {5, 17, 99, 3, 250, 41, 7, 7, 12}, second = {33, 8, 140, 2, 61};
  auto fresh = make_cpu_backend(tiny());
  const std::vector<float> want = feed(*fresh, second);
  auto b = make_cpu_backend(tiny());
  const std::vector<float> other = feed(*b, first);
  ASSERT_TRUE(b->restart());
  EXPECT_TRUE(same_bits(feed(*b, second), want));
  EXPECT_FALSE(same_bits(other, want));  // the comparison can fail: another sequence's logits differ
  // Stepping after the restart continues the new sequence like the fresh one.
  EXPECT_TRUE(same_bits(b->step(9), fresh->step(9)));
}

#if !defined(ORDO_BUILD_GPU)
TEST(engine_backend, a_cpu_build_has_no_gpu) {
  EXPECT_FALSE(gpu_device_present());
  EXPECT_THROW(make_gpu_backend(tiny()), std::runtime_error);
  for (const auto& k : built_backends()) EXPECT_NE(k.name, "gpu");
}
#endif

}  // namespace
}  // namespace ordo::eval
