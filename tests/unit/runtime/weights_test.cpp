// Weights through the tensor map (include/ordo/runtime/weights.hpp) on tiny synth files in both
// namings: every view's geometry, bytes equal to what synth generated, errors naming tensors.
#include <gtest/gtest.h>

#include <cstring>

#include "ordo/runtime/weights.hpp"
#include "synth_files.hpp"

namespace ordo::runtime {
namespace {

using model::ds4_role;

const synth::planned_tensor& planned(const test::synth_model& m, const std::string& name) {
  for (const auto& f : m.plan.files)
    for (const auto& t : f.tensors)
      if (t.spec.name == name) return t;
  throw std::runtime_error("not planned: " + name);
}

void expect_bytes_match_synth(const test::synth_model& m, const weight_view& v) {
  const std::vector<std::byte> want = synth::tensor_bytes(planned(m, v.name), 0);
  ASSERT_EQ(want.size(), v.bytes()) << v.name;
  EXPECT_EQ(std::memcmp(want.data(), v.data, want.size()), 0) << v.name;
}

TEST(weights, ds4_naming_with_sidecar) {
  const auto m = test::write_tiny(model::ds4_naming::ds4, "w_ds4");
  const model_weights w = model_weights::open(m.main, m.mtp);
  const auto& h = w.hparams();
  EXPECT_EQ(w.naming(), model::ds4_naming::ds4);
  ASSERT_EQ(w.layers().size(), h.n_layer);
  const weight_view& qb = w.layer(0).need(ds4_role::attn_q_b);
  EXPECT_EQ(qb.name, "blk.0.attn_q_b.weight");
  EXPECT_EQ(qb.cols, h.q_lora_rank);
  EXPECT_EQ(qb.rows, h.q_dim());
  EXPECT_EQ(qb.row_bytes, uint64_t{h.q_lora_rank} * 4);  // tiny is f32
  expect_bytes_match_synth(m, qb);
  const weight_view& gate = w.layer(1).need(ds4_role::ffn_gate_exps);
  EXPECT_EQ(gate.experts, h.n_expert);
  EXPECT_EQ(gate.rows, h.n_ff_exp);
  EXPECT_EQ(gate.cols, h.n_embd);
  expect_bytes_match_synth(m, gate);
  ASSERT_NE(w.mtp(), nullptr);
  const weight_view& e = w.mtp()->need(ds4_role::mtp_e_proj);
  EXPECT_EQ(e.name, "mtp.0.e_proj.weight");
  expect_bytes_match_synth(m, e);
  expect_bytes_match_synth(m, w.globals().need(ds4_role::output));
  // Layer 3 is ratio 128: no indexer. The error names the tensor the step would have needed.
  try {
    w.layer(3).need(ds4_role::indexer_proj);
    FAIL() << "absent tensor returned";
  } catch (const model::ds4_error& err) {
    EXPECT_NE(std::string(err.what()).find("blk.3.indexer.proj.weight"), std::string::npos) << err.what();
    EXPECT_NE(std::string(err.what()).find("ratio 128"), std::string::npos) << err.what();
  }
  EXPECT_THROW(w.mtp()->need(ds4_role::mtp_eh_proj), model::ds4_error);  // llama-only fused projection
}

TEST(weights, llama_naming_mtp_in_main_file) {
  const auto m = test::write_tiny(model::ds4_naming::llama, "w_llama");
  const model_weights w = model_weights::open(m.main);
  EXPECT_EQ(w.naming(), model::ds4_naming::llama);
  ASSERT_NE(w.mtp(), nullptr);
  const auto& h = w.hparams();
  const weight_view& eh = w.mtp()->need(ds4_role::mtp_eh_proj);
  EXPECT_EQ(eh.name, "blk." + std::to_string(h.n_layer) + ".nextn.eh_proj.weight");
  EXPECT_EQ(eh.cols, 2ull * h.n_embd);
  expect_bytes_match_synth(m, eh);
  try {
    w.mtp()->need(ds4_role::mtp_hc_head_fn);  // ds4-only: llama reuses the main output HC head
    FAIL();
  } catch (const model::ds4_error& err) {
    EXPECT_NE(std::string(err.what()).find("MTP block"), std::string::npos) << err.what();
  }
}

TEST(weights, bytes_equal_the_file_tensor_table) {
  const auto m = test::write_tiny(model::ds4_naming::ds4, "w_total");
  const model_weights w = model_weights::open(m.main, m.mtp);
  uint64_t table = 0;
  for (const auto& p : {m.main, m.mtp})
    for (const auto& t : gguf::file::open(p).tensors()) table += t.nbytes;
  EXPECT_EQ(w.bytes(), table);
}

TEST(weights, a_broken_file_names_the_tensor) {
  EXPECT_THROW(model_weights::open("/nonexistent/model.gguf"), gguf::error);
}

}  // namespace
}  // namespace ordo::runtime
