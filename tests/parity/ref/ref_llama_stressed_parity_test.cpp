// Parity of the reference (simulations off) with llama.cpp on a "stressed" tiny model: an
// `ordo synth` F32 model whose weights are then pushed into the regimes the plain fixtures never
// reach, so that small semantic changes move logits far beyond the 1e-4 tolerance:
//  * SwiGLU clamp: every expert's gate and up projections scaled by k_expert_gain (down by its
//    inverse), so the clamp cuts gate or up values of most expert rows (counted and printed:
//    gate > 10 on ~4% of values, |up| > 10 on ~9%, gate < -10 on ~8%; replay_stats asserts >= 1%
//    each), plus a block of shared-expert gate rows held far below -10 (stress_edits());
//  * Sinkhorn: the comb part of every HC base scaled by k_comb_gain, so the 4x4 logits are
//    contrasty enough that 19 and 20 iterations give different mixing matrices;
//  * YaRN: original context 256 instead of 65536, so the interpolated RoPE pairs turn by
//    radians (not milliradians) within the 330-token run and the factor changes the angles.
//
// Built plain, the test asserts parity. Built with an ORDO_MUTANT_* switch (mutant_mode.hpp),
// the same comparison must detect the mutant; it prints the margin (max |dlogit| / tolerance).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "gguf_patch.hpp"
#include "mutant_mode.hpp"
#include "parity_util.hpp"

namespace ordo::parity {
namespace {

constexpr double k_tolerance = 1e-4;  // the F32 llama.cpp parity bound (ref_llama_parity_test.cpp)
constexpr float k_expert_gain = 6.0f;
constexpr float k_comb_gain = 6.0f;
constexpr int k_layers = 4;  // the tiny preset: n_embd 256, expert_ff 128, vocab 512
constexpr int k_embd = 256, k_ff = 128;
constexpr int k_hc = 4;
// A sign-constant input for "gate far below -limit": embedding dim 0 is k_dim0 for every token,
// so after the FFN norm x[0] is large and positive at every position; the shared expert's first
// k_neg_units gate rows read only -x[0] (g ~ -20 < -limit everywhere: silu(g) ~ 1e-8) and their
// down columns are amplified k_neg_down times, so clamping the gate from below too (silu(-10) =
// -4.5e-4) would move the FFN output by ~1e-2 instead of by nothing.
constexpr float k_dim0 = 20.0f, k_neg_gate = 2.0f, k_neg_down = 50.0f;
constexpr int k_neg_units = 32;

std::vector<tensor_edit> stress_edits() {
  std::vector<tensor_edit> e;
  auto times = [](float s) { return [s](uint64_t, float v) { return v * s; }; };
  for (int il = 0; il < k_layers; ++il) {
    const std::string b = "blk." + std::to_string(il) + ".";
    for (const char* t : {"ffn_gate_exps", "ffn_up_exps", "ffn_gate_shexp", "ffn_up_shexp"})
      e.push_back({b + t + ".weight", times(k_expert_gain)});
    for (const char* t : {"ffn_down_exps", "ffn_down_shexp"}) e.push_back({b + t + ".weight", times(1.0f / k_expert_gain)});
    e.push_back({b + "ffn_gate_shexp.weight", [](uint64_t i, float v) {  // [ne0 n_embd, ne1 ff]
                   if (i / k_embd >= k_neg_units) return v;
                   return i % k_embd == 0 ? -k_neg_gate : 0.0f;
                 }});
    e.push_back({b + "ffn_down_shexp.weight",  // [ne0 ff, ne1 n_embd]
                 [](uint64_t i, float v) { return i % k_ff < k_neg_units ? v * k_neg_down : v; }});
    // base = [pre (hc), post (hc), comb (hc*hc)]: only the comb logits are sharpened.
    for (const char* t : {"hc_attn_base", "hc_ffn_base"})
      e.push_back({b + t + ".weight", [](uint64_t i, float v) { return i >= 2 * k_hc ? v * k_comb_gain : v; }});
  }
  e.push_back({"token_embd.weight", [](uint64_t i, float v) { return i % k_embd == 0 ? k_dim0 : v; }});
  return e;
}

TEST(RefLlamaStressedParity, ClampSinkhornAndYarnRegimesMatch) {
  const unsigned seed = 6;
  const int n_prompt = 320, n_gen = 16;
  const fs::path dir = fs::path(WORK_DIR) / "work" / (mutant_build ? "stressed_" ORDO_MUTANT_NAME : "stressed");
  fs::create_directories(dir);
  const fs::path model = dir / "model.gguf";
  run_command(std::string("'") + ORDO_BIN + "' synth --preset tiny --naming llama -q --seed " + std::to_string(seed) +
              " --set rope.scaling.original_context_length=256 -o " + q(model));
  if (HasFatalFailure()) return;
  {  // stress_edits() indexes by the tiny preset's shapes
    const gguf::file plain = gguf::file::open(model);
    ASSERT_EQ(plain.get_u32("deepseek4.block_count"), static_cast<uint32_t>(k_layers));
    ASSERT_EQ(plain.tensor("blk.0.ffn_gate_shexp.weight").dims, (std::vector<uint64_t>{k_embd, k_ff}));
  }
  patch_f32_tensors(model, stress_edits());
  if (HasFatalFailure()) return;
  const auto prompt = prompt_ids(n_prompt, seed, 512);
  run_command(std::string("'") + LLAMA_DRIVER + "' -m " + q(model) + " --tokens-file " + q(write_ids(dir, prompt)) +
              " --greedy " + std::to_string(n_gen) + " -o " + q(dir / "llama.ordl"));
  if (HasFatalFailure()) return;
  const ordl theirs = eval::read_ordl(dir / "llama.ordl");

  const gguf::file f = gguf::file::open(model);
  const eval::ref_model m = eval::load_ref_model(f);
  replay_stats cs;
  const ordl ours = replay_reference(m, theirs.tokens, ref::simulations::all_off(), &cs);
  eval::write_ordl(dir / "ref.ordl", ours);
  ASSERT_EQ(ours.n_vocab, theirs.n_vocab);
  const diff d = compare(ours, theirs, ours.tokens.size());
  int greedy_mismatch = 0;
  for (std::size_t p = n_prompt - 1; p + 1 < theirs.tokens.size(); ++p)
    greedy_mismatch += eval::argmax(ours.row(p)) != theirs.tokens[p + 1];
  std::printf("[stressed%s] positions %zu max|dlogit| %.3g at %d (%.3gx the tolerance %.0e), mean %.3g, "
              "argmax agree %d/%zu, greedy mismatches %d\n",
              mutant_build ? " " ORDO_MUTANT_NAME : "", ours.tokens.size(), d.max_abs, d.worst_pos,
              d.max_abs / k_tolerance, k_tolerance, d.mean_abs, d.argmax_agree, ours.tokens.size(), greedy_mismatch);
  cs.print("stressed");
  RecordProperty("max_abs_dlogit", std::to_string(d.max_abs));
  if constexpr (mutant_build) {
    // The fixture's own claims below are the plain build's; a mutant's trajectory differs.
    EXPECT_GT(d.max_abs, 10 * k_tolerance) << "mutant " ORDO_MUTANT_NAME " is not detected with a 10x margin";
  } else {
    cs.expect_clamp_exercised();
    EXPECT_GT(cs.topk_selections, 0) << "the fixture no longer exercises the indexer's top-k";
    EXPECT_EQ(cs.topk_boundary_ties, 0) << "a top-k selection depends on the tie rule, which llama.cpp does not share";
    EXPECT_LE(d.max_abs, k_tolerance) << "worst position " << d.worst_pos;
    EXPECT_EQ(greedy_mismatch, 0);
  }
  drop_models_if_passed(dir);
}

}  // namespace
}  // namespace ordo::parity
