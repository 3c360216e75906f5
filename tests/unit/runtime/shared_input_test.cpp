// layer_step's shared_input (runtime/layer_step.hpp): qmv calls that read one f32 stage share one
// quantization per quantizer, with the bits of quantizing per call; and matmul_group: a same-input
// group's members whose weights lie back to back are one qmv, with the bits of one per member. On the CPU executor with the
// registry's real entries: Q8_0 weights (q8_32 activations) and Q2_K weights (q8_k) read the same
// rows; a recording executor counts the quantize runs.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "ordo/quant/random_block.hpp"
#include "ordo/registry/all_ops.hpp"
#include "ordo/runtime/executor.hpp"
#include "ordo/runtime/layer_step.hpp"
#include "ordo/runtime/same_input_groups.hpp"

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

/// n_out random rows of k elements in format F at `bytes`, as a weight view called `name`.
template <class F>
runtime::weight_view random_weight(const char* name, std::byte* bytes, int n_out, int k, std::uint64_t seed) {
  const std::size_t row_bytes = std::size_t(k / F::block_elems) * F::block_bytes;
  quant::splitmix64 rng{seed};
  auto* b = reinterpret_cast<typename F::block*>(bytes);
  for (std::size_t i = 0; i < row_bytes * std::size_t(n_out) / F::block_bytes; ++i) b[i] = quant::random_block<F>(rng, 0.05f);
  runtime::weight_view v;
  v.name = name;
  v.data = bytes;
  v.format = static_cast<gguf::ggml_type>(F::ggml_type);
  v.cols = std::uint64_t(k);
  v.rows = std::uint64_t(n_out);
  v.row_bytes = row_bytes;
  return v;
}

/// The qmv call of `view` (format F) at tier 4.
template <class F>
runtime::qmv_call call_of(const runtime::weight_view& view) {
  runtime::qmv_call c;
  c.weight = &view;
  c.entry = &registry::find_axes<ops::qmv::op>(F::name, "r4", "ls32");
  c.quantize = &registry::find_axes<ops::quantize_rows::op>(c.entry->info.activation);
  return c;
}

/// A weight of n_out random rows of k elements in format F, and its qmv call at tier 4.
template <class F>
struct weight {
  std::vector<std::byte> bytes;
  runtime::weight_view view;
  runtime::qmv_call call;
  weight(const char* name, int n_out, int k, std::uint64_t seed)
      : bytes(std::size_t(k / F::block_elems) * F::block_bytes * std::size_t(n_out)),
        view(random_weight<F>(name, bytes.data(), n_out, k, seed)),
        call(call_of<F>(view)) {}
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


// ---- matmul_group (runtime/same_input_groups.hpp) ------------------------------------------------

namespace group {
using runtime::group_column_after;

/// Q8_0 weights of rows[i] rows each, back to back in one buffer as weight_placement lays a group
/// (then `tail` rows that belong to none of them), and their calls.
struct packed {
  std::vector<std::byte> bytes;
  std::vector<runtime::weight_view> views;
  std::vector<runtime::qmv_call> calls;
  packed(const std::vector<int>& rows, int tail, std::uint64_t seed) {
    constexpr std::size_t row_bytes = std::size_t(k / quant::q8_0::block_elems) * quant::q8_0::block_bytes;
    int total = tail;
    for (int r : rows) total += r;
    bytes.resize(row_bytes * std::size_t(total));
    views.reserve(rows.size() + 1);
    std::size_t at = 0;
    for (int r : rows) {
      views.push_back(random_weight<quant::q8_0>("member", bytes.data() + at * row_bytes, r, k, seed++));
      at += std::size_t(r);
    }
    if (tail) (void)random_weight<quant::q8_0>("tail", bytes.data() + at * row_bytes, tail, k, seed);
    for (const auto& v : views) calls.push_back(call_of<quant::q8_0>(v));
  }
};

int qmv_runs(const std::vector<std::string>& ran) {
  int n = 0;
  for (const auto& s : ran) n += s.rfind("qmv.", 0) == 0 ? 1 : 0;
  return n;
}

/// The members' outputs as the group stage holds them must be each member's own call's bits.
template <std::size_t N>
void expect_each_members_bits(const std::array<const runtime::qmv_call*, N>& calls, const std::array<f32_rows, N>& views,
                              const stages& s, std::uint64_t expected_column_after) {
  uint64_t column = 0;
  for (std::size_t i = 0; i < N; ++i) {
    const int n = static_cast<int>(calls[i]->weight->rows);
    stages own = s;
    std::vector<float> alone_out(std::size_t(rows) * std::size_t(n));
    runtime::cpu_executor ex;
    runtime::step_detail::matmul(ex, *calls[i], own.x_rows(), own.q8_rows(), f32_rows{alone_out.data(), std::size_t(n)}, rows);
    EXPECT_EQ(views[i].data - views[0].data, std::ptrdiff_t(column)) << "member " << i << "'s column";
    for (int r = 0; r < rows; ++r)
      EXPECT_EQ(std::memcmp(views[i].row(r), alone_out.data() + std::size_t(r) * n, std::size_t(n) * sizeof(float)), 0)
          << "member " << i << ", row " << r;
    column = group_column_after(column, calls[i]->weight->rows);
  }
  EXPECT_EQ(column, expected_column_after);
}

}  // namespace group

// Three members back to back and a fourth elsewhere: the three are one qmv, the fourth its own,
// and every member's columns hold the bits of its own call (one quantization of x for all). The
// kept mutant (ORDO_MUTANT_GROUP_IGNORES_PLACEMENT) merges the fourth too and reads the rows that
// follow the third instead of its own.
TEST(matmul_group, members_back_to_back_are_one_qmv_with_the_bits_of_one_per_member) {
  group::packed g({64, 128, 64}, 64, 21);  // then 64 rows of no member: where d would be if it followed c
  weight<quant::q8_0> d("d", 24, k, 31);
  const std::array<const runtime::qmv_call*, 4> calls = {&g.calls[0], &g.calls[1], &g.calls[2], &d.call};
  ASSERT_TRUE(runtime::continues(g.calls[0], g.calls[1]));
  ASSERT_TRUE(runtime::continues(g.calls[1], g.calls[2]));
  const std::size_t width = 64 + 128 + 64 + 64, stride = width + 24;  // a stride wider than the row
  stages s;
  std::vector<float> out(std::size_t(rows) * stride, -1.0f);
  std::vector<std::string> ran;
  recording_executor ex{&ran};
  shared_input in{s.x_rows(), s.q8_rows()};
  const auto views = runtime::step_detail::matmul_group<4>(ex, calls, in, f32_rows{out.data(), stride}, width, rows);
  group::expect_each_members_bits(calls, views, s, width);
  EXPECT_EQ(group::qmv_runs(ran), 2) << "a, b and c continue one another; d lies elsewhere";
  EXPECT_EQ(quantize_runs(ran), 1);
}

// A member whose rows are not a multiple of the column alignment ends a run even where the next
// member's weights follow it: the next member's output must start on an aligned column.
TEST(matmul_group, an_unaligned_member_ends_the_run) {
  group::packed g({40, 64}, 0, 41);
  const std::array<const runtime::qmv_call*, 2> calls = {&g.calls[0], &g.calls[1]};
  EXPECT_FALSE(runtime::continues(g.calls[0], g.calls[1]));
  const std::size_t width = 128;
  stages s;
  std::vector<float> out(std::size_t(rows) * width);
  std::vector<std::string> ran;
  recording_executor ex{&ran};
  shared_input in{s.x_rows(), s.q8_rows()};
  const auto views = runtime::step_detail::matmul_group<2>(ex, calls, in, f32_rows{out.data(), width}, width, rows);
  group::expect_each_members_bits(calls, views, s, width);
  EXPECT_EQ(group::qmv_runs(ran), 2);
}

TEST(matmul_group, a_stage_too_narrow_for_the_group_is_refused) {
  group::packed g({64, 64}, 0, 51);
  const std::array<const runtime::qmv_call*, 2> calls = {&g.calls[0], &g.calls[1]};
  stages s;
  std::vector<float> out(std::size_t(rows) * 128);
  runtime::cpu_executor ex;
  shared_input in{s.x_rows(), s.q8_rows()};
  EXPECT_THROW((runtime::step_detail::matmul_group<2>(ex, calls, in, f32_rows{out.data(), 128}, 127, rows)), std::logic_error);
}

}  // namespace
