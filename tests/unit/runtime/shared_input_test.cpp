// layer_step's shared_input (runtime/layer_step.hpp): qmv calls that read one f32 stage share one
// quantization per quantizer, with the bits of quantizing per call. On the CPU executor with the
// registry's real entries: Q8_0 weights (q8_32 activations) and Q2_K weights (q8_k) read the same
// rows; a recording executor counts the quantize runs.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "ordo/quant/random_block.hpp"
#include "ordo/registry/all_ops.hpp"
#include "ordo/runtime/executor.hpp"
#include "ordo/runtime/layer_step.hpp"

namespace {
using namespace ordo;
using runtime::step_detail::byte_rows;
using runtime::step_detail::f32_rows;
using runtime::step_detail::shared_input;

/// The CPU executor, also writing down the entry names it runs.
struct recording_executor {
  std::vector<std::string>* ran;
  template <class Entry, class Problem>
  void run(const Entry& e, const Problem& p) const {
    ran->emplace_back(e.name.view());
    e.run_cpu(p);
  }
};

int quantize_runs(const std::vector<std::string>& ran) {
  int n = 0;
  for (const auto& s : ran) n += s.rfind("quantize_rows.", 0) == 0 ? 1 : 0;
  return n;
}

/// A weight of n_out random rows of k elements in format F, and its qmv call at tier 4.
template <class F>
struct weight {
  std::vector<std::byte> bytes;
  runtime::weight_view view;
  runtime::qmv_call call;
  weight(const char* name, int n_out, int k, std::uint64_t seed) {
    const std::size_t row_bytes = std::size_t(k / F::block_elems) * F::block_bytes;
    bytes.resize(row_bytes * std::size_t(n_out));
    quant::splitmix64 rng{seed};
    auto* b = reinterpret_cast<typename F::block*>(bytes.data());
    for (std::size_t i = 0; i < bytes.size() / F::block_bytes; ++i) b[i] = quant::random_block<F>(rng, 0.05f);
    view.name = name;
    view.data = bytes.data();
    view.cols = std::uint64_t(k);
    view.rows = std::uint64_t(n_out);
    view.row_bytes = row_bytes;
    call.weight = &view;
    call.entry = &registry::find_axes<ops::qmv::op>(F::name, "r4", "ls32");
    call.quantize = &registry::find_axes<ops::quantize_rows::op>(call.entry->info.activation);
  }
};

constexpr int k = 512, rows = 3, n_out = 40;

struct stages {
  std::vector<float> x = std::vector<float>(std::size_t(rows) * k);
  std::vector<std::byte> q8 = std::vector<std::byte>(std::size_t(rows) * 4096);
  std::vector<float> out = std::vector<float>(std::size_t(rows) * n_out);
  stages() {
    quant::splitmix64 rng{11};
    for (auto& v : x) v = quant::uniform_pm1(rng) * (rng() % 2 ? 1e-3f : 7.5f);  // mixed magnitudes and signs
  }
  f32_rows x_rows() { return {x.data(), std::size_t(k)}; }
  byte_rows q8_rows() { return {q8.data(), 4096}; }
  f32_rows out_rows() { return {out.data(), std::size_t(n_out)}; }
};

/// w on the rows of s quantized by its own call, in stages of its own.
template <class W>
std::vector<float> alone(W& w, const stages& s) {
  stages own = s;
  runtime::cpu_executor ex;
  runtime::step_detail::matmul(ex, w.call, own.x_rows(), own.q8_rows(), own.out_rows(), rows);
  return own.out;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(shared_input, one_quantization_per_quantizer_with_the_bits_of_one_per_call) {
  weight<quant::q8_0> a("a", n_out, k, 1), b("b", n_out, k, 2);
  weight<quant::q2_k> c("c", n_out, k, 3);
  stages s;
  const auto a_alone = alone(a, s), b_alone = alone(b, s), c_alone = alone(c, s);
  ASSERT_FALSE(same_bits(a_alone, b_alone));  // the comparisons below can tell the calls apart

  std::vector<std::string> ran;
  recording_executor ex{&ran};
  shared_input in{s.x_rows(), s.q8_rows()};
  runtime::step_detail::matmul(ex, a.call, in, s.out_rows(), rows);
  EXPECT_TRUE(same_bits(s.out, a_alone));
  runtime::step_detail::matmul(ex, b.call, in, s.out_rows(), rows);
  EXPECT_TRUE(same_bits(s.out, b_alone));
  EXPECT_EQ(quantize_runs(ran), 1) << "b read a's quantization";
  runtime::step_detail::matmul(ex, c.call, in, s.out_rows(), rows);  // q8_k: quantizes again
  EXPECT_TRUE(same_bits(s.out, c_alone));
  EXPECT_EQ(quantize_runs(ran), 2);
  runtime::step_detail::matmul(ex, a.call, in, s.out_rows(), rows);  // back to q8_32: the stage holds q8_k now
  EXPECT_TRUE(same_bits(s.out, a_alone));
  EXPECT_EQ(quantize_runs(ran), 3);
  runtime::step_detail::matmul(ex, a.call, in, s.out_rows(), rows - 1);  // fewer rows: quantized again
  EXPECT_EQ(quantize_runs(ran), 4);
  EXPECT_EQ(ran.size(), 9u);  // 5 qmv runs
}

// The test can fail: a shared input that kept a stale quantization (the rows changed after it was
// made, against its contract) gives other bits than quantizing per call.
TEST(shared_input, a_stale_quantization_is_seen) {
  weight<quant::q8_0> a("a", n_out, k, 1);
  stages s;
  std::vector<std::string> ran;
  recording_executor ex{&ran};
  shared_input in{s.x_rows(), s.q8_rows()};
  runtime::step_detail::matmul(ex, a.call, in, s.out_rows(), rows);
  for (auto& v : s.x) v = -v * 0.5f;
  const auto fresh = alone(a, s);
  runtime::step_detail::matmul(ex, a.call, in, s.out_rows(), rows);  // reads the blocks of the old rows
  EXPECT_FALSE(same_bits(s.out, fresh));
}

}  // namespace
