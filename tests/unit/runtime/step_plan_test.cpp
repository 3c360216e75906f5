// Step plans (include/ordo/runtime/step_plan.hpp) and executors on tiny synth files: every matmul
// resolves to the qmv spec of its format at the tier, a spec this build lacks fails by name,
// pending families are listed, and a resolved call runs on the CPU executor with the bits of the
// entry's own CPU function.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "ordo/runtime/executor.hpp"
#include "ordo/runtime/step_plan.hpp"
#include "synth_files.hpp"

namespace ordo::runtime {
namespace {

using model::ds4_role;

TEST(step_plan, resolves_every_matmul_once_per_tier) {
  const auto m = test::write_tiny(model::ds4_naming::ds4, "plan_f32");
  const model_weights w = model_weights::open(m.main, m.mtp);
  for (int tier : {1, 4, 16}) {
    const step_plan p = plan_for(w, tier);
    const std::string t = ".r" + std::to_string(tier) + ".ls32";
    // Every matmul of an all-F32 file is qmv.f32; its experts are the f32 moe layout's two phases.
    EXPECT_EQ(p.resolved_specs(), (std::vector<std::string>{"moe.f32" + t + ".down", "moe.f32" + t + ".gate_up", "qmv.f32" + t}));
    for (const auto& l : p.layers) {
      const auto& wb = w.layer(l.layer);
      for (std::size_t i = 0; i < model::ds4_role_count; ++i) {
        const auto r = static_cast<ds4_role>(i);
        // Exactly the matmul roles the block has are resolved.
        EXPECT_EQ(bool(l.qmv[i]), is_qmv_role(r) && wb.find(r) != nullptr) << wb.prefix << int(i);
      }
      EXPECT_EQ(bool(l.at(ds4_role::indexer_proj)), l.ratio == 4);
    }
    ASSERT_TRUE(p.mtp);
    EXPECT_TRUE(p.mtp->at(ds4_role::mtp_e_proj));
    EXPECT_TRUE(p.head.at(ds4_role::output));
    EXPECT_FALSE(p.head.at(ds4_role::token_embd));  // a row lookup, not a matmul
    // The FFN experts are the moe family's two launches at the step's tier, on the block's own
    // tensors; every other family of the step is resolved, so nothing is pending.
    for (const auto& l : p.layers) {
      ASSERT_TRUE(l.moe) << l.layer;
      EXPECT_EQ(l.moe.gate_up->tier, tier);
      EXPECT_EQ(l.moe.down->name.view(), "moe.f32" + t + ".down");
      EXPECT_EQ(l.moe.down_w->name, w.layer(l.layer).need(ds4_role::ffn_down_exps).name);
      EXPECT_EQ(l.moe.shared_down->name, w.layer(l.layer).need(ds4_role::ffn_down_shexp).name);
    }
    EXPECT_TRUE(p.families.attention && p.families.indexer && p.families.kv_store && p.families.hc_post != nullptr);
    EXPECT_NE(p.families.norm_weighted, nullptr);
    EXPECT_TRUE(p.pending.empty());
    EXPECT_NO_THROW(p.require_complete());
  }
}

TEST(step_plan, mixed_formats_resolve_per_tensor) {
  const auto m = test::write_tiny(model::ds4_naming::llama, "plan_q8", gguf::ggml_type::q8_0, gguf::ggml_type::q8_0);
  const model_weights w = model_weights::open(m.main);
  const step_plan p = plan_for(w, 2);
  const auto specs = p.resolved_specs();
  EXPECT_NE(std::find(specs.begin(), specs.end(), "qmv.q8_0.r2.ls32"), specs.end());
  const qmv_call& qa = p.layers.at(0).at(ds4_role::attn_q_a);
  EXPECT_EQ(qa.entry->name.view(), "qmv.q8_0.r2.ls32");
  EXPECT_EQ(qa.quantize->info.activation, "q8_32");
  ASSERT_TRUE(p.mtp);
  EXPECT_TRUE(p.mtp->at(ds4_role::mtp_eh_proj));
}

TEST(step_plan, a_missing_spec_fails_by_name) {
  const auto m = test::write_tiny(model::ds4_naming::ds4, "plan_missing");
  const model_weights w = model_weights::open(m.main, m.mtp);
  try {
    plan_for(w, 9);  // no tier 9 in any preset
    FAIL();
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("qmv.f32.r9.ls32"), std::string::npos) << e.what();
  }
  try {
    plan_for(w, 1, "zz99");
    FAIL();
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("qmv.f32.r1.zz99"), std::string::npos) << e.what();
  }
}

TEST(executor, cpu_runs_the_resolved_entry) {
  const auto m = test::write_tiny(model::ds4_naming::ds4, "plan_run");
  const model_weights w = model_weights::open(m.main, m.mtp);
  const step_plan p = plan_for(w, 2);
  const qmv_call& c = p.layers.at(0).at(ds4_role::attn_q_a);
  const weight_view& wv = *c.weight;
  // Two activation rows of mixed magnitude and sign, quantized with the plan's quantizer.
  std::mt19937 rng(7);
  std::vector<float> x(2 * wv.cols);
  for (auto& v : x) v = std::ldexp(std::uniform_real_distribution<float>(-1, 1)(rng), int(rng() % 9) - 4);
  const std::size_t act_row = wv.cols / c.quantize->info.block_elems * c.quantize->info.block_bytes;
  std::vector<std::byte> act(2 * act_row);
  ops::quantize_rows::problem qp{x.data(), wv.cols, act.data(), act_row, int(wv.cols), 2};
  cpu_executor ex;
  ex.run(*c.quantize, qp);
  std::vector<float> out(2 * wv.rows, -1.0f), ref(2 * wv.rows, -2.0f);
  ops::qmv::problem prob{wv.data, wv.row_bytes, act.data(), act_row, out.data(), wv.rows, int(wv.rows), int(wv.cols), 2};
  ex.run(*c.entry, prob);
  prob.out = ref.data();
  c.entry->run_cpu(prob);
  EXPECT_EQ(std::memcmp(out.data(), ref.data(), out.size() * 4), 0);
  // The result is the product (f32 weights, act_f32 rows), checked against double: a float sum
  // of k products errs by at most about k·2^-24·Σ|terms| (each product and addition rounds once).
  const float* W = reinterpret_cast<const float*>(wv.data);
  for (int i = 0; i < 2; ++i)
    for (uint64_t r = 0; r < wv.rows; r += 17) {
      double s = 0, mag = 0;
      for (uint64_t k = 0; k < wv.cols; ++k) {
        const double t = double(W[r * wv.cols + k]) * x[i * wv.cols + k];
        s += t, mag += std::abs(t);
      }
      EXPECT_NEAR(out[i * wv.rows + r], s, double(wv.cols + 1) * std::ldexp(1.0, -24) * mag) << r;
    }
  gpu_executor g(nullptr);
#if !defined(ORDO_BUILD_GPU)
  EXPECT_THROW(g.run(*c.entry, prob), std::runtime_error);
#endif
}

}  // namespace
}  // namespace ordo::runtime
