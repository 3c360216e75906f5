// The memory plan (include/ordo/runtime/memory_plan.hpp): full DS4 Flash bytes from the model
// description against an independent closed-form count (docs/engine.md §Memory plan derives each
// term from ds4-model.md §1–§2 and §8.4), synth models against what synth writes, the fit check's
// refusal with its numbers, and `ordo inspect --plan`'s report.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "ordo/runtime/memory_plan.hpp"
#include "runtime/plan_report.hpp"
#include "synth_files.hpp"

namespace ordo::runtime {
namespace {

constexpr uint64_t GiB = uint64_t{1} << 30;

// ---- the independent count (no tensor map): ds4-model.md §1 shapes, §2 types, §8.4 layouts ----
constexpr uint64_t L = 43, D = 4096, V = 129280, HD = 512, QL = 1024, NH = 64, E = 256, F = 2048, HC = 16384, MIX = 24;
constexpr uint64_t q8(uint64_t elems) { return elems / 32 * 34; }
constexpr uint64_t f16(uint64_t elems) { return elems * 2; }
constexpr uint64_t f32(uint64_t elems) { return elems * 4; }
constexpr uint64_t n4 = 21, n128 = 20, nhash = 3;  // ratio-4 layers 2,4..42; ratio-128 3,5..41; hash 0..2

// Q8_0 per layer: q_a, q_b, kv, wo_a (8 groups × 1024 rows of 4096), wo_b, shared gate/up/down.
constexpr uint64_t dense_per_layer = q8(D * QL) + q8(QL * NH * HD) + q8(D * HD) + q8(8 * 1024 * (NH * HD / 8)) +
                                     q8(8 * 1024 * D) + 3 * q8(D * F);
// F16: HC fn ×2, router, compressors (+APE), indexer.
constexpr uint64_t small_per_layer = 2 * f16(HC * MIX) + f16(D * E);
constexpr uint64_t comp4 = 2 * f16(D * 2 * HD) + f16(2 * HD * 4) + f16(QL * 64 * 128) + f16(D * 64) + 2 * f16(D * 256) +
                           f16(256 * 4);
constexpr uint64_t comp128 = 2 * f16(D * HD) + f16(HD * 128);
// F32 vectors of every layer: hc scale 3 + base 24 (×2), attn/ffn norm, q_a norm, kv norm, sinks.
constexpr uint64_t vec_per_layer = f32(2 * (3 + 24) + 2 * D + QL + HD + NH);
constexpr uint64_t vec_extra = (n4 + n128) * f32(HD) + n4 * f32(128) + (L - nhash) * f32(E);  // comp norms, bias
constexpr uint64_t tid2eid = nhash * 4 * 6 * V;
constexpr uint64_t globals = f16(D * V) + q8(D * V) + f16(HC * 4) + f32(4 + 1 + D);
constexpr uint64_t experts_q2 = L * (2 * E * F * (D / 256) * 66 + E * D * (F / 256) * 84);  // IQ2_XXS gate/up, Q2_K down
constexpr uint64_t experts_mxfp4 = L * 3 * E * F * (D / 32) * 17;
constexpr uint64_t flash_non_expert = L * (dense_per_layer + small_per_layer + vec_per_layer) + n4 * comp4 +
                                      n128 * comp128 + vec_extra + tid2eid + globals;

TEST(memory_plan, full_flash_weights_match_an_independent_count) {
  const model::ds4_hparams h = model::ds4_flash_hparams();
  state_options o;
  o.ctx = 32768;
  const memory_plan q2 = plan_memory(h, weight_entries(h, model::ds4_naming::ds4, weight_types::layout("q2")), o, 16);
  EXPECT_EQ(q2.weights, experts_q2 + flash_non_expert);
  // ds4-model.md §8.4's computed sizes: experts 72.56 GiB (q2), Q8_0 dense ≈ 6.15 GiB.
  EXPECT_NEAR(double(experts_q2) / GiB, 72.56, 0.005);
  EXPECT_NEAR(double(L * dense_per_layer + q8(D * V)) / GiB, 6.15, 0.005);
  const memory_plan mx = plan_memory(h, weight_entries(h, model::ds4_naming::ds4, weight_types::layout("mxfp4")), o, 16);
  EXPECT_EQ(mx.weights, experts_mxfp4 + flash_non_expert);
  EXPECT_GT(double(mx.weights) / GiB, 139.0);  // issue 11: MXFP4 Flash does not fit one H200
}

TEST(memory_plan, full_flash_state_matches_an_independent_count) {
  const model::ds4_hparams h = model::ds4_flash_hparams();
  for (uint32_t ctx : {4096u, 32768u, 1048576u}) {
    state_options o;
    o.ctx = ctx;
    const memory_plan p = plan_memory(h, {}, o, 16);
    // Per position (ds4-model.md §6): ratio-4 layers keep a 512-wide attention row and a 128-wide
    // indexer row per 4 positions, ratio-128 layers a 512-wide row per 128, all f32: 13,760 B.
    const uint64_t per_pos = n4 * (HD + 128) * 4 / 4 + n128 * HD * 4 / 128;
    EXPECT_EQ(per_pos, 13760u);
    // Fixed: raw rings (128 + 16 slack rows of 512 f16) in 43 layers; compressor rings of kv and
    // score: ratio 4 — 6 windows of 4 rows (≥ 16 + 7) × (1024 attention + 256 indexer) floats;
    // ratio 128 — 2 windows of 128 rows (≥ 16 + 127) × 512 floats.
    const uint64_t fixed = L * 144 * HD * 2 + n4 * 2 * 24 * (1024 + 256) * 4 + n128 * 2 * 256 * 512 * 4;
    EXPECT_EQ(p.state_bytes, per_pos * ctx + fixed) << "ctx " << ctx;
  }
}

TEST(memory_plan, both_namings_count_the_mtp_block) {
  model::ds4_hparams h = model::ds4_flash_hparams();
  h.n_mtp = 1;
  const weight_types t = weight_types::layout("q2");
  state_options o;
  o.ctx = 4096;
  const memory_plan ds4 = plan_memory(h, weight_entries(h, model::ds4_naming::ds4, t), o, 1);
  const memory_plan llama = plan_memory(h, weight_entries(h, model::ds4_naming::llama, t), o, 1);
  // ds4's sidecar: e_proj + h_proj and its own output HC head; llama: one fused eh_proj
  // [2·D, D] (same bytes as the two) and the main HC head. The rest of the block is the same.
  const uint64_t hc_head = f16(HC * 4) + f32(4) + f32(1);
  EXPECT_EQ(ds4.weights - llama.weights, hc_head);
  EXPECT_EQ(ds4.weights_mtp - llama.weights_mtp, hc_head);
  // The MTP block: a full block (no compressor, indexer, tid2eid) + e/h projections + 3 norms.
  const uint64_t mtp_block = dense_per_layer + small_per_layer + vec_per_layer + f32(E) + experts_q2 / L +
                             2 * q8(D * D) + 3 * f32(D) + hc_head;
  EXPECT_EQ(ds4.weights_mtp, mtp_block);
  EXPECT_EQ(ds4.weights, experts_q2 + flash_non_expert + mtp_block);
  // Its state: one more raw ring.
  EXPECT_EQ(ds4.state.by_kind().mtp, 144u * HD * 2);
}

TEST(memory_plan, refuses_what_does_not_fit_with_the_numbers) {
  const model::ds4_hparams h = model::ds4_flash_hparams();
  state_options o;
  o.ctx = 32768;
  const uint64_t h200 = 139 * GiB;
  const memory_plan q2 = plan_memory(h, weight_entries(h, model::ds4_naming::ds4, weight_types::layout("q2")), o, 16);
  EXPECT_NO_THROW(check_fits(q2, placement::device, h200));
  const memory_plan mx = plan_memory(h, weight_entries(h, model::ds4_naming::ds4, weight_types::layout("mxfp4")), o, 16);
  try {
    check_fits(mx, placement::device, h200);
    FAIL() << "MXFP4 Flash accepted on 139 GiB";
  } catch (const memory_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("device memory"), std::string::npos) << m;
    EXPECT_NE(m.find(std::to_string(mx.total()) + " bytes"), std::string::npos) << m;
    EXPECT_NE(m.find(std::to_string(h200) + " bytes"), std::string::npos) << m;
    EXPECT_NE(m.find("weights alone"), std::string::npos) << m;
  }
  // The q2 weights fit 139 GiB, a 1M context does not (13.76 KB × 1M ≈ 13.4 GiB more): refused
  // for the state, not the weights.
  o.ctx = 1048576;
  const memory_plan big = plan_memory(h, weight_entries(h, model::ds4_naming::ds4, weight_types::layout("q2")), o, 16);
  try {
    check_fits(big, placement::device, 86 * GiB);
    FAIL();
  } catch (const memory_error& e) {
    EXPECT_NE(std::string(e.what()).find("smaller context"), std::string::npos) << e.what();
  }
}

TEST(memory_plan, allocation_is_checked_first) {
  // Full Flash at 1M positions needs ~14 GB of state: refused on 1 GiB before any allocation
  // (allocating first would take seconds and gigabytes, or crash).
  const model::ds4_hparams h = model::ds4_flash_hparams();
  state_options o;
  o.ctx = 1048576;
  const memory_plan p = plan_memory(h, {}, o, 16);
  EXPECT_GT(p.state_bytes, 14'000'000'000ull);
  EXPECT_THROW(allocate_checked(p, placement::host, GiB), memory_error);
  // A small context fits and allocates exactly the planned layouts.
  o.ctx = 1024;
  const memory_plan small = plan_memory(h, {}, o, 4);
  const sequence_allocation a = allocate_checked(small, placement::host, GiB);
  EXPECT_EQ(a.state.bytes(), small.state_bytes);
  EXPECT_EQ(a.scratch.layout().bytes(), small.workspace_bytes);
}

TEST(memory_plan, small_synth_description_equals_what_synth_plans) {
  // Full dims via the description, without writing the file: synth's own plan is the other count.
  synth::options so;
  so.base = synth::preset::small;
  so.mtp = true;
  so.out = "unused_small.gguf";
  const synth::plan sp = synth::make_plan(so);
  uint64_t synth_bytes = 0;
  for (const auto& f : sp.files)
    for (const auto& t : f.tensors) synth_bytes += gguf::tensor_nbytes(t.spec.type, t.spec.dims);
  weight_types t;
  t.dense = synth::default_dense(synth::preset::small);
  t.gate_up = t.down = synth::default_experts(synth::preset::small);
  const auto entries = weight_entries(sp.hparams, model::ds4_naming::ds4, t);
  uint64_t described = 0;
  for (const auto& e : entries) described += e.bytes;
  EXPECT_EQ(described, synth_bytes);
}

TEST(memory_plan, tiny_synth_file_plan_and_report) {
  const auto m = test::write_tiny(model::ds4_naming::ds4, "plan_tiny");
  const model_weights w = model_weights::open(m.main, m.mtp);
  state_options o;
  o.ctx = 4096;
  const memory_plan p = plan_memory(w.hparams(), weight_entries(w), o, 16);
  EXPECT_EQ(p.weights, w.bytes());
  EXPECT_GT(p.weights_mtp, 0u);
  EXPECT_EQ(p.state_bytes, plan_sequence_state(w.hparams(), [&] { auto x = o; x.slack_rows = 16; return x; }()).bytes());
  // The report: fits a generous host, refused (status 1, numbers printed) on a tiny device.
  std::FILE* out = std::tmpfile();
  plan_report_options ro;
  ro.ctx = 4096;
  ro.mtp = m.mtp;
  ro.host_bytes = 64 * GiB;
  EXPECT_EQ(print_memory_plan(m.main, ro, out, stderr), 0);
  ro.device_bytes = 1 << 20;
  EXPECT_EQ(print_memory_plan(m.main, ro, out, stderr), 1);
  std::rewind(out);
  std::string text(1 << 16, '\0');
  text.resize(std::fread(text.data(), 1, text.size(), out));
  std::fclose(out);
  EXPECT_NE(text.find("memory plan: "), std::string::npos) << text;
  EXPECT_NE(text.find("cpu executor, host RAM 64.00 GiB: fits"), std::string::npos) << text;
  EXPECT_NE(text.find("gpu executor, device memory: refused: does not fit device memory"), std::string::npos) << text;
  EXPECT_NE(text.find(std::to_string(p.weights) + " bytes"), std::string::npos) << text;
  // A context beyond the model's context_length is refused by the plan itself.
  ro.ctx = w.hparams().context_length + 1;
  EXPECT_EQ(print_memory_plan(m.main, ro, stdout, stdout), 1);
}

}  // namespace
}  // namespace ordo::runtime
