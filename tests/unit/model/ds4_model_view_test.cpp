// open_ds4 on in-memory files: a good file resolves every role; each kind of corruption gives the
// message that names the tensor.
#include "ordo/model/ds4_model_view.hpp"

#include <gtest/gtest.h>

#include "fake_file.hpp"

namespace {

using namespace ordo::model;
using test::fake_file;
using test::make_fake;
using ordo::gguf::ggml_type;

ds4_hparams small() {
  ds4_hparams h = ds4_flash_hparams();
  ds4_set_hparam(h, "block_count", "8");
  return h;
}

std::string error_of(const fake_file& f, ds4_naming n, const fake_file* mtp = nullptr) {
  try {
    open_ds4(f, n, mtp);
  } catch (const ds4_error& e) {
    return e.what();
  }
  return "";
}

TEST(open_ds4, resolves_every_role) {
  const fake_file f = make_fake(small(), ds4_naming::ds4);
  const auto v = open_ds4(f, ds4_naming::ds4);
  ASSERT_EQ(v.layers.size(), 8u);
  EXPECT_NE(v.get(ds4_role::output), nullptr);
  EXPECT_EQ(v.get(ds4_role::output)->name, "output.weight");
  EXPECT_EQ(v.layers[7].get(ds4_role::attn_q_b)->name, "blk.7.attn_q_b.weight");
  EXPECT_EQ(v.layers[3].ratio, 128u);
  EXPECT_EQ(v.layers[3].get(ds4_role::indexer_proj), nullptr);
  EXPECT_NE(v.layers[4].get(ds4_role::indexer_proj), nullptr);
  EXPECT_NE(v.layers[2].get(ds4_role::ffn_gate_tid2eid), nullptr);
  EXPECT_FALSE(v.mtp.has_value());
}

TEST(open_ds4, names_the_wrong_type) {
  fake_file f = make_fake(small(), ds4_naming::ds4);
  f.tensors["blk.7.attn_q_b.weight"].type = ggml_type::q4_k;
  EXPECT_NE(error_of(f, ds4_naming::ds4).find("blk.7.attn_q_b.weight: type q4_K not accepted (expected q8_0|f16|bf16|f32)"),
            std::string::npos)
      << error_of(f, ds4_naming::ds4);
}

TEST(open_ds4, names_missing_and_misshaped_tensors_all_at_once) {
  fake_file f = make_fake(small(), ds4_naming::llama);
  f.tensors.erase("blk.2.indexer.proj.weight");
  f.tensors["blk.0.attn_kv.weight"].dims = {4096, 256};
  f.tensors.erase("blk.5.exp_probs_b.bias");  // llama.cpp requires it on routed layers
  const std::string msg = error_of(f, ds4_naming::llama);
  EXPECT_NE(msg.find("fake.gguf: 3 problem(s)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("blk.2.indexer.proj.weight: missing"), std::string::npos) << msg;
  EXPECT_NE(msg.find("blk.0.attn_kv.weight: shape [4096, 256] (expected [4096, 512])"), std::string::npos) << msg;
  EXPECT_NE(msg.find("blk.5.exp_probs_b.bias: missing"), std::string::npos) << msg;
  // ds4 treats the selection bias as optional.
  fake_file g = make_fake(small(), ds4_naming::ds4);
  g.tensors.erase("blk.5.exp_probs_b.bias");
  EXPECT_EQ(error_of(g, ds4_naming::ds4), "");
}

TEST(open_ds4, gate_and_up_experts_share_a_type) {
  fake_file f = make_fake(small(), ds4_naming::ds4);
  f.tensors["blk.4.ffn_up_exps.weight"].type = ggml_type::q2_k;
  EXPECT_NE(error_of(f, ds4_naming::ds4).find("blk.4.ffn_gate_exps.weight and ffn_up_exps.weight: types q8_0 and q2_K differ"),
            std::string::npos)
      << error_of(f, ds4_naming::ds4);
}

TEST(open_ds4, mtp_in_both_conventions) {
  ds4_hparams h = small();
  h.n_mtp = 1;
  const fake_file main_llama = make_fake(h, ds4_naming::llama);
  const auto v = open_ds4(main_llama, ds4_naming::llama);
  ASSERT_TRUE(v.mtp.has_value());
  EXPECT_EQ(v.hparams.n_layer, 8u);
  EXPECT_EQ(v.mtp->get(ds4_role::mtp_eh_proj)->name, "blk.8.nextn.eh_proj.weight");
  EXPECT_EQ(v.mtp->get(ds4_role::mtp_e_proj), nullptr);

  const fake_file main_ds4 = make_fake(h, ds4_naming::ds4);
  const fake_file side = make_fake(h, ds4_naming::ds4, ds4_file_part::mtp_sidecar);
  const auto w = open_ds4(main_ds4, ds4_naming::ds4, &side);
  ASSERT_TRUE(w.mtp.has_value());
  EXPECT_EQ(w.mtp->get(ds4_role::mtp_e_proj)->name, "mtp.0.e_proj.weight");
  EXPECT_EQ(w.mtp->get(ds4_role::attn_q_b)->name, "mtp.0.attn_q_b.weight");
  EXPECT_EQ(w.layers.size(), 8u);

  fake_file bad_side = side;
  bad_side.path = "side.gguf";
  bad_side.tensors.erase("mtp.0.hnorm.weight");
  EXPECT_NE(error_of(main_ds4, ds4_naming::ds4, &bad_side).find("side.gguf: 1 problem(s)"), std::string::npos);

  // A declared llama MTP block without its projection is rejected (llama.cpp would misread it).
  fake_file no_eh = main_llama;
  no_eh.tensors.erase("blk.8.nextn.eh_proj.weight");
  EXPECT_NE(error_of(no_eh, ds4_naming::llama).find("blk.8.nextn.eh_proj.weight is missing"), std::string::npos);
}

TEST(open_ds4, guesses_the_naming) {
  ds4_hparams h = small();
  EXPECT_EQ(guess_ds4_naming(make_fake(h, ds4_naming::llama)), ds4_naming::ds4);  // no MTP: same names
  h.n_mtp = 1;
  EXPECT_EQ(guess_ds4_naming(make_fake(h, ds4_naming::llama)), ds4_naming::llama);
  EXPECT_EQ(guess_ds4_naming(make_fake(h, ds4_naming::ds4)), ds4_naming::ds4);
}

TEST(open_ds4, ds4_layout_check) {
  fake_file f = make_fake(small(), ds4_naming::ds4);
  // make_fake gives token_embd q8_0 (accepted by ordo), which antirez/ds4 does not take.
  EXPECT_EQ(ds4_layout_mismatches(open_ds4(f, ds4_naming::ds4)),
            std::vector<std::string>{"token_embd.weight: type q8_0 (antirez/ds4 expects f16)"});
  f.tensors["token_embd.weight"].type = ggml_type::f16;
  f.tensors["blk.1.ffn_gate_inp.weight"].type = ggml_type::f32;  // ds4 takes F16 or F32 routers
  EXPECT_TRUE(ds4_layout_mismatches(open_ds4(f, ds4_naming::ds4)).empty());
  f.tensors["blk.6.attn_kv.weight"].type = ggml_type::bf16;
  EXPECT_EQ(ds4_layout_mismatches(open_ds4(f, ds4_naming::ds4)),
            std::vector<std::string>{"blk.6.attn_kv.weight: type bf16 (antirez/ds4 expects q8_0)"});
}

TEST(open_ds4, wrong_architecture) {
  fake_file f = make_fake(small(), ds4_naming::ds4);
  f.meta["general.architecture"] = ordo::gguf::value::string("deepseek2");
  EXPECT_NE(error_of(f, ds4_naming::ds4).find("general.architecture is \"deepseek2\""), std::string::npos)
      << error_of(f, ds4_naming::ds4);
}

}  // namespace
