// End-to-end conversions of a tiny DS4 checkpoint in the official FP8/FP4 layout, HF transformers'
// in-memory layout and save_pretrained's layout. Every GGUF tensor is decoded and compared with
// what its source bytes mean (decoded independently in tiny_checkpoint.hpp): float outputs bit for
// bit, MXFP4 experts value for value (the repack is lossless), q8_0 within its rounding bound.
#include <cmath>
#include <cstring>
#include <sstream>

#include <fmt/format.h>

#include <gtest/gtest.h>

#include "convert/run.hpp"
#include "ordo/model/ds4_model_view.hpp"
#include "ordo/model/gguf.hpp"
#include "ordo/numeric/conversions.hpp"
#include "ordo/quant/mxfp4.hpp"
#include "ordo/quant/q8_0.hpp"
#include "tiny_checkpoint.hpp"

namespace ordo::convert {
namespace {

using namespace testing;
using gguf::ggml_type;

struct expected_tensor {
  std::vector<std::uint64_t> dims;
  std::vector<float> values;
  src_kind kind;
};

// GGUF name → concatenated expected values (experts in expert order) and dims.
using expectation = std::map<std::string, expected_tensor>;

void expect_entry(expectation& ex, const weight_spec& w, const std::vector<float>& values, int n_expert) {
  auto& e = ex[w.gguf];
  if (e.dims.empty()) {
    for (auto it = w.shape.rbegin(); it != w.shape.rend(); ++it) e.dims.push_back(static_cast<std::uint64_t>(*it));
    if (w.expert >= 0) e.dims.push_back(static_cast<std::uint64_t>(n_expert));
    e.kind = w.official;
  }
  if (w.expert >= 0) ASSERT_EQ(static_cast<std::size_t>(e.values.size()), w.expert * values.size()) << w.upstream;
  e.values.insert(e.values.end(), values.begin(), values.end());
}

std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// Compares one GGUF tensor with its expectation; `want_type` is the type it must have.
void check_tensor(const gguf::file& f, const std::string& name, const expected_tensor& e, ggml_type want_type) {
  SCOPED_TRACE(name);
  const auto* t = f.find_tensor(name);
  ASSERT_NE(t, nullptr) << "missing in the GGUF";
  EXPECT_EQ(t->type, want_type) << gguf::to_string(t->type);
  ASSERT_EQ(t->dims, e.dims);
  const auto n = e.values.size();
  const auto* p = t->data;
  switch (t->type) {
    case ggml_type::f32:
      for (std::size_t i = 0; i < n; ++i) {
        float v;
        std::memcpy(&v, p + 4 * i, 4);
        ASSERT_EQ(bits(v), bits(e.values[i])) << "element " << i;
      }
      break;
    case ggml_type::f16:
      for (std::size_t i = 0; i < n; ++i) {
        std::uint16_t h;
        std::memcpy(&h, p + 2 * i, 2);
        ASSERT_EQ(h, numeric::f32_to_f16(e.values[i])) << "element " << i;
      }
      break;
    case ggml_type::bf16:
      for (std::size_t i = 0; i < n; ++i) {
        std::uint16_t h;
        std::memcpy(&h, p + 2 * i, 2);
        ASSERT_EQ(h, numeric::f32_to_bf16(e.values[i])) << "element " << i;
      }
      break;
    case ggml_type::i32:
      for (std::size_t i = 0; i < n; ++i) {
        std::int32_t v;
        std::memcpy(&v, p + 4 * i, 4);
        ASSERT_EQ(static_cast<float>(v), e.values[i]) << "element " << i;
      }
      break;
    case ggml_type::mxfp4:
      for (std::size_t b = 0; b < n / 32; ++b) {
        quant::mxfp4::block blk;
        std::memcpy(&blk, p + 17 * b, 17);
        float v[32];
        quant::mxfp4::dequant(blk, v);
        if (e.kind == src_kind::fp4) {
          // Repacked FP4: exactly the source values.
          for (int k = 0; k < 32; ++k) ASSERT_EQ(v[k], e.values[32 * b + k]) << "element " << 32 * b + k;
        } else {
          // Quantized from floats: scale 2^(floor(log2 amax) - 3), grid step at most 4·scale,
          // values above 12·scale clip: the error stays below amax / 2.
          float amax = 0;
          for (int k = 0; k < 32; ++k) amax = std::fmax(amax, std::fabs(e.values[32 * b + k]));
          for (int k = 0; k < 32; ++k)
            ASSERT_LE(std::fabs(v[k] - e.values[32 * b + k]), 0.5f * amax) << "element " << 32 * b + k;
        }
      }
      break;
    case ggml_type::q8_0:
      for (std::size_t b = 0; b < n / 32; ++b) {
        quant::q8_0::block blk;
        std::memcpy(&blk, p + 34 * b, 34);
        float v[32];
        quant::q8_0::dequant(blk, v);
        float amax = 0;
        for (int k = 0; k < 32; ++k) amax = std::fmax(amax, std::fabs(e.values[32 * b + k]));
        // |q·d16 − x| <= 0.5·d + 127·|d16 − d| <= d·(0.5 + 127·2^-11) < 0.6·amax/127.
        const float bound = 0.6f * amax / 127.0f;
        for (int k = 0; k < 32; ++k)
          ASSERT_LE(std::fabs(v[k] - e.values[32 * b + k]), bound) << "element " << 32 * b + k;
      }
      break;
    default: FAIL() << "unexpected type " << gguf::to_string(t->type);
  }
}

struct official_fixture {
  tiny_dims d;
  std::vector<weight_spec> specs = tiny_weights(d);
  std::vector<weight_spec> mtp_specs = tiny_mtp_weights(d);
  expectation expected, expected_mtp;

  // Two shards and an index, with the MTP block; also a selection bias on the hash layer, which
  // the converter must drop.
  void write(const std::filesystem::path& dir) {
    std::mt19937 rng(42);
    std::vector<st_entry> shard[2];
    const std::size_t n_main = specs.size();
    auto all = specs;
    all.insert(all.end(), mtp_specs.begin(), mtp_specs.end());
    for (std::size_t i = 0; i < all.size(); ++i) {
      const auto& w = all[i];
      const auto t = make_official(rng, w, d.E);
      auto& out = shard[i % 2];
      auto stored_shape = w.shape;
      if (w.official == src_kind::fp4) stored_shape[1] /= 2;  // two E2M1 codes per I8 byte
      out.push_back({w.upstream, dtype_of(w.official), stored_shape, t.data});
      if (w.official == src_kind::fp8)
        out.push_back({w.upstream.substr(0, w.upstream.size() - 7) + ".scale", "F8_E8M0", fp8_scale_shape(w.shape), t.scale});
      if (w.official == src_kind::fp4)
        out.push_back({w.upstream.substr(0, w.upstream.size() - 7) + ".scale", "F8_E8M0",
                       {w.shape[0], w.shape[1] / 32}, t.scale});
      expect_entry(i < n_main ? expected : expected_mtp, w, decode_official(w, t), d.E);
    }
    shard[1].push_back({"layers.0.ffn.gate.bias", "F32", {d.E}, random_bytes(rng, 4 * d.E)});
    nlohmann::json index = {{"metadata", {{"total_size", 0}}}, {"weight_map", nlohmann::json::object()}};
    for (int s = 0; s < 2; ++s) {
      const auto file = "model-0000" + std::to_string(s + 1) + "-of-00002.safetensors";
      write_safetensors(dir / file, shard[s]);
      for (const auto& e : shard[s]) index["weight_map"][e.name] = file;
    }
    write_text(dir / "model.safetensors.index.json", index.dump());
    write_text(dir / "config.json", official_config(d));
  }
};

ggml_type default_type_of(const std::string& gguf_name, src_kind kind) {
  if (gguf_name.find("_exps.") != std::string::npos) return ggml_type::mxfp4;
  if (kind == src_kind::i64) return ggml_type::i32;
  static const char* dense[] = {"attn_q_a.weight", "attn_q_b.weight", "attn_kv.weight", "attn_output_a.weight",
                                "attn_output_b.weight", "_shexp.weight", "output.weight", "e_proj.weight",
                                "h_proj.weight"};
  for (auto s : dense)
    if (gguf_name.ends_with(s) && gguf_name.find("indexer") == std::string::npos) return ggml_type::q8_0;
  static const char* aux[] = {"token_embd.weight", "_fn.weight", "compressor_ape.weight", "compressor_kv.weight",
                              "compressor_gate.weight", "indexer.attn_q_b.weight", "indexer.proj.weight",
                              "ffn_gate_inp.weight"};
  for (auto s : aux)
    if (gguf_name.ends_with(s)) return ggml_type::f16;
  return ggml_type::f32;
}

TEST(Convert, OfficialLayoutWithDs4Types) {
  temp_dir dir("official");
  official_fixture fx;
  fx.write(dir.path);
  std::ostringstream log;
  convert_request req{dir.path, dir.path / "out.gguf", std::nullopt, {}, false};
  convert_checkpoint(req, &log);
  const auto f = gguf::file::open(dir.path / "out.gguf");
  EXPECT_EQ(f.tensors().size(), fx.expected.size());
  for (const auto& [name, e] : fx.expected) check_tensor(f, name, e, default_type_of(name, e.kind));
  EXPECT_EQ(f.find_tensor("blk.0.exp_probs_b.bias"), nullptr) << "hash layers carry no selection bias";
  // The engine's loader accepts the file: names, types and shapes per its DS4 tensor map.
  EXPECT_NO_THROW(model::open_ds4(f, model::ds4_naming::ds4));
  std::size_t mtp_sources = 0;  // weights plus their FP8/FP4 scales
  for (const auto& w : fx.mtp_specs) mtp_sources += w.official == src_kind::fp8 || w.official == src_kind::fp4 ? 2 : 1;
  EXPECT_NE(log.str().find(fmt::format("skipped {} MTP tensors", mtp_sources)), std::string::npos) << log.str();
  EXPECT_NE(log.str().find("dropped 'layers.0.ffn.gate.bias'"), std::string::npos) << log.str();
  EXPECT_NE(log.str().find("blk.2.ffn_gate_exps.weight mxfp4"), std::string::npos) << log.str();

  // Metadata, with the values config.json gives (the schedule truncated to the 4 main layers).
  EXPECT_EQ(f.get_string("general.architecture"), "deepseek4");
  EXPECT_EQ(f.get_u32("deepseek4.block_count"), 4u);
  EXPECT_EQ(f.get_u32("deepseek4.embedding_length"), 256u);
  EXPECT_EQ(f.get_u32("deepseek4.vocab_size"), 512u);
  EXPECT_EQ(f.get_u32("deepseek4.context_length"), 1048576u);
  EXPECT_EQ(f.get_u32("deepseek4.attention.head_count"), 2u);
  EXPECT_EQ(f.get_u32("deepseek4.attention.head_count_kv"), 1u);
  EXPECT_EQ(f.get_u32("deepseek4.attention.key_length"), 128u);
  EXPECT_EQ(f.get_u32("deepseek4.attention.value_length"), 128u);
  EXPECT_EQ(f.get_u32("deepseek4.rope.dimension_count"), 64u);
  EXPECT_EQ(f.get_u32("deepseek4.attention.q_lora_rank"), 96u);
  EXPECT_EQ(f.get_u32("deepseek4.attention.output_group_count"), 2u);
  EXPECT_EQ(f.get_u32("deepseek4.attention.output_lora_rank"), 32u);
  EXPECT_EQ(f.get_u32("deepseek4.attention.sliding_window"), 16u);
  EXPECT_EQ(f.get_array<std::int32_t>("deepseek4.attention.compress_ratios"), (std::vector<std::int32_t>{0, 0, 4, 128}));
  EXPECT_EQ(f.get_f32("deepseek4.attention.compress_rope_freq_base"), 160000.0f);
  EXPECT_EQ(f.get_u32("deepseek4.attention.indexer.head_count"), 2u);
  EXPECT_EQ(f.get_u32("deepseek4.attention.indexer.key_length"), 128u);
  EXPECT_EQ(f.get_u32("deepseek4.attention.indexer.top_k"), 4u);
  EXPECT_EQ(f.get_u32("deepseek4.expert_count"), 4u);
  EXPECT_EQ(f.get_u32("deepseek4.expert_used_count"), 2u);
  EXPECT_EQ(f.get_u32("deepseek4.expert_shared_count"), 1u);
  EXPECT_EQ(f.get_u32("deepseek4.expert_feed_forward_length"), 64u);
  EXPECT_EQ(f.get_u32("deepseek4.expert_gating_func"), 4u);
  EXPECT_EQ(f.get_bool("deepseek4.expert_weights_norm"), true);
  EXPECT_EQ(f.get_f32("deepseek4.expert_weights_scale"), 1.5f);
  EXPECT_EQ(f.get_u32("deepseek4.hash_layer_count"), 1u);
  EXPECT_EQ(f.get_array<float>("deepseek4.swiglu_clamp_exp"), std::vector<float>(4, 10.0f));
  EXPECT_EQ(f.get_f32("deepseek4.attention.layer_norm_rms_epsilon"), 1e-6f);
  EXPECT_EQ(f.get_u32("deepseek4.hyper_connection.count"), 4u);
  EXPECT_EQ(f.get_u32("deepseek4.hyper_connection.sinkhorn_iterations"), 20u);
  EXPECT_EQ(f.get_f32("deepseek4.hyper_connection.epsilon"), 1e-6f);
  EXPECT_EQ(f.get_f32("deepseek4.rope.freq_base"), 10000.0f);
  EXPECT_EQ(f.get_string("deepseek4.rope.scaling.type"), "yarn");
  EXPECT_EQ(f.get_f32("deepseek4.rope.scaling.factor"), 16.0f);
  EXPECT_EQ(f.get_u32("deepseek4.rope.scaling.original_context_length"), 65536u);
  EXPECT_EQ(f.get_f32("deepseek4.rope.scaling.yarn_beta_fast"), 32.0f);
  EXPECT_EQ(f.get_f32("deepseek4.rope.scaling.yarn_beta_slow"), 1.0f);
}

TEST(Convert, OfficialLayoutMtpSidecar) {
  temp_dir dir("official-mtp");
  official_fixture fx;
  fx.write(dir.path);
  convert_request req{dir.path, dir.path / "out.gguf", std::nullopt, {}, false};
  req.mtp_output = dir.path / "out-mtp.gguf";
  convert_checkpoint(req, nullptr);
  const auto main = gguf::file::open(dir.path / "out.gguf");
  const auto mtp = gguf::file::open(dir.path / "out-mtp.gguf");
  EXPECT_EQ(main.tensors().size(), fx.expected.size());
  EXPECT_EQ(mtp.tensors().size(), fx.expected_mtp.size());
  for (const auto& [name, e] : fx.expected_mtp) check_tensor(mtp, name, e, default_type_of(name, e.kind));
  EXPECT_EQ(mtp.get_string("general.architecture"), "deepseek4_mtp_support");
  // The engine resolves the main model plus its MTP block from the two files.
  const auto view = model::open_ds4(main, model::ds4_naming::ds4, &mtp);
  EXPECT_EQ(view.hparams.n_mtp, 1u);
}

// Tensors of 2^18+ elements are decoded and encoded on several threads (run.cpp parallel_rows);
// the bytes must not depend on that. Wider q_lora (FP8 wq_a/wq_b of 262k elements) and vocab
// (BF16 embedding and head of 1M) than the other tests.
TEST(Convert, LargerTensorsConvertTheSameOnManyThreads) {
  temp_dir dir("official-wide");
  official_fixture fx;
  fx.d.ql = 1024;
  fx.d.V = 4096;
  fx.specs = tiny_weights(fx.d);
  fx.mtp_specs = tiny_mtp_weights(fx.d);
  fx.write(dir.path);
  convert_checkpoint({dir.path, dir.path / "q.gguf", std::nullopt, {}, false}, nullptr);
  const auto q = gguf::file::open(dir.path / "q.gguf");
  for (const auto& [name, e] : fx.expected) check_tensor(q, name, e, default_type_of(name, e.kind));
  convert_request req{dir.path, dir.path / "f.gguf", std::nullopt, {}, false};
  req.options.dense = ggml_type::f32;
  req.options.aux = ggml_type::bf16;
  req.options.experts = ggml_type::f16;
  convert_checkpoint(req, nullptr);
  const auto f = gguf::file::open(dir.path / "f.gguf");
  for (const auto& [name, e] : fx.expected) {
    auto type = default_type_of(name, e.kind);
    if (type == ggml_type::q8_0) type = ggml_type::f32;
    else if (type == ggml_type::f16) type = ggml_type::bf16;
    else if (type == ggml_type::mxfp4) type = ggml_type::f16;
    check_tensor(f, name, e, type);
  }
}

TEST(Convert, OfficialLayoutAllFloat) {
  temp_dir dir("official-f32");
  official_fixture fx;
  fx.write(dir.path);
  convert_request req{dir.path, dir.path / "out.gguf", std::nullopt, {}, false};
  req.options.dense = ggml_type::f32;
  req.options.aux = ggml_type::f32;
  req.options.experts = ggml_type::f32;
  convert_checkpoint(req, nullptr);
  const auto f = gguf::file::open(dir.path / "out.gguf");
  for (const auto& [name, e] : fx.expected)
    check_tensor(f, name, e, e.kind == src_kind::i64 ? ggml_type::i32 : ggml_type::f32);
}

// HF-style checkpoints hold F32 values; `spelling` picks the names.
enum class hf_spelling { in_memory, save_pretrained };

struct hf_fixture {
  tiny_dims d;
  std::vector<weight_spec> specs = tiny_weights(d);
  std::vector<weight_spec> mtp_specs;  // empty: no MTP block; tiny_mtp_weights(d) adds one
  expectation expected, expected_mtp;

  void write(const std::filesystem::path& dir, hf_spelling spelling) {
    std::mt19937 rng(7);
    std::vector<st_entry> entries;
    // Fused experts: per layer (-1: the MTP block) gate_up [E, 2I, H] (gate rows first) and down [E, H, I].
    std::map<int, std::vector<float>> gate_up, down;
    std::map<int, std::map<int, std::vector<float>>> gate, up;
    auto all = specs;
    all.insert(all.end(), mtp_specs.begin(), mtp_specs.end());
    for (auto w : all) {
      const bool mtp = w.upstream.rfind("mtp.0.", 0) == 0;
      if (w.official != src_kind::i64) w.official = src_kind::f32;
      const auto t = make_official(rng, w, d.E);
      const auto values = decode_official(w, t);
      expect_entry(mtp ? expected_mtp : expected, w, values, d.E);
      if (w.expert >= 0 && spelling == hf_spelling::in_memory) {
        const int layer = mtp ? -1 : std::stoi(w.upstream.substr(7));
        if (w.proj == "w1") gate[layer][w.expert] = values;
        if (w.proj == "w3") up[layer][w.expert] = values;
        if (w.proj == "w2") down[layer].insert(down[layer].end(), values.begin(), values.end());
        continue;
      }
      std::string name;
      if (spelling == hf_spelling::in_memory) name = hf_name(w.upstream);
      else name = w.upstream == "head.weight" || mtp ? w.upstream : "model." + w.upstream;
      entries.push_back({name, dtype_of(w.official), w.shape, t.data});
    }
    for (auto& [layer, experts] : gate) {
      auto& gu = gate_up[layer];
      for (int e = 0; e < d.E; ++e) {
        gu.insert(gu.end(), experts[e].begin(), experts[e].end());
        gu.insert(gu.end(), up[layer][e].begin(), up[layer][e].end());
      }
      const auto prefix = layer < 0 ? std::string("mtp.0.mlp.experts.") : "model.layers." + std::to_string(layer) + ".mlp.experts.";
      entries.push_back({prefix + "gate_up_proj", "F32", {d.E, 2 * d.I, d.H}, bytes_of(gu)});
      entries.push_back({prefix + "down_proj", "F32", {d.E, d.H, d.I}, bytes_of(down[layer])});
    }
    write_safetensors(dir / "model.safetensors", entries);
    write_text(dir / "config.json", hf_config(d));
  }
};

TEST(Convert, HfInMemoryLayoutWithFusedExpertsIsBitExactInF32) {
  temp_dir dir("hf");
  hf_fixture fx;
  fx.write(dir.path, hf_spelling::in_memory);
  convert_request req{dir.path / "model.safetensors", dir.path / "out.gguf", std::nullopt, {}, false};
  req.options.dense = ggml_type::f32;
  req.options.aux = ggml_type::f32;
  convert_checkpoint(req, nullptr);
  const auto f = gguf::file::open(dir.path / "out.gguf");
  EXPECT_EQ(f.tensors().size(), fx.expected.size());
  for (const auto& [name, e] : fx.expected)
    check_tensor(f, name, e, e.kind == src_kind::i64 ? ggml_type::i32 : ggml_type::f32);
  EXPECT_NO_THROW(model::open_ds4(f, model::ds4_naming::ds4));
  EXPECT_EQ(f.get_array<std::int32_t>("deepseek4.attention.compress_ratios"), (std::vector<std::int32_t>{0, 0, 4, 128}));
  EXPECT_EQ(f.get_u32("deepseek4.hash_layer_count"), 1u);
  EXPECT_EQ(f.get_u32("deepseek4.rope.dimension_count"), 64u);
  EXPECT_EQ(f.get_u32("deepseek4.context_length"), 4096u);
  EXPECT_EQ(f.get_string("deepseek4.rope.scaling.type"), "yarn");
  EXPECT_EQ(f.get_u32("deepseek4.rope.scaling.original_context_length"), 65536u);
}

// HF has no MTP module; a torch MTP block built from HF's parts saves `mtp.0.` + HF module names
// (fused experts, `hc_head.hc_fn`). The converter folds them like a layer's into ds4's sidecar.
TEST(Convert, HfInMemoryMtpBlockBecomesTheSidecar) {
  temp_dir dir("hf-mtp");
  hf_fixture fx;
  fx.mtp_specs = tiny_mtp_weights(fx.d);
  fx.write(dir.path, hf_spelling::in_memory);
  convert_request req{dir.path / "model.safetensors", dir.path / "out.gguf", std::nullopt, {}, false};
  req.options.dense = ggml_type::f32;
  req.options.aux = ggml_type::f32;
  req.mtp_output = dir.path / "out-mtp.gguf";
  convert_checkpoint(req, nullptr);
  const auto main = gguf::file::open(dir.path / "out.gguf");
  const auto mtp = gguf::file::open(dir.path / "out-mtp.gguf");
  EXPECT_EQ(main.tensors().size(), fx.expected.size());
  ASSERT_EQ(mtp.tensors().size(), fx.expected_mtp.size());
  for (const auto& [name, e] : fx.expected_mtp) check_tensor(mtp, name, e, ggml_type::f32);
  const auto view = model::open_ds4(main, model::ds4_naming::ds4, &mtp);
  EXPECT_EQ(view.hparams.n_mtp, 1u);
}

TEST(Convert, SavePretrainedLayoutIsBitExactInF32AndBf16Aux) {
  temp_dir dir("hf-saved");
  hf_fixture fx;
  fx.write(dir.path, hf_spelling::save_pretrained);
  convert_request req{dir.path, dir.path / "out.gguf", std::nullopt, {}, false};
  req.options.dense = ggml_type::f32;
  req.options.aux = ggml_type::bf16;
  convert_checkpoint(req, nullptr);
  const auto f = gguf::file::open(dir.path / "out.gguf");
  EXPECT_EQ(f.tensors().size(), fx.expected.size());
  for (const auto& [name, e] : fx.expected) {
    auto type = default_type_of(name, e.kind);
    if (type == ggml_type::f16) type = ggml_type::bf16;
    else if (type == ggml_type::q8_0 || type == ggml_type::mxfp4) type = ggml_type::f32;
    check_tensor(f, name, e, type);
  }
}

TEST(Convert, Q8_0ExpertsFromFloatSources) {
  temp_dir dir("hf-q8");
  hf_fixture fx;
  fx.write(dir.path, hf_spelling::in_memory);
  convert_request req{dir.path, dir.path / "out.gguf", std::nullopt, {}, false};
  convert_checkpoint(req, nullptr);  // defaults: dense q8_0, aux f16, experts follow dense
  const auto f = gguf::file::open(dir.path / "out.gguf");
  for (const auto& [name, e] : fx.expected) {
    auto type = default_type_of(name, e.kind);
    if (type == ggml_type::mxfp4) type = ggml_type::q8_0;
    check_tensor(f, name, e, type);
  }
}

TEST(Convert, TokenizerSection) {
  temp_dir dir("vocab");
  hf_fixture fx;
  fx.write(dir.path, hf_spelling::save_pretrained);
  // No tokenizer.json beside the checkpoint: no section, and a note says so.
  std::ostringstream log;
  convert_checkpoint({dir.path, dir.path / "a.gguf", std::nullopt, {}, false}, &log);
  EXPECT_FALSE(gguf::file::open(dir.path / "a.gguf").has("tokenizer.ggml.tokens"));
  EXPECT_NE(log.str().find("no tokenizer.json"), std::string::npos) << log.str();

  // A tokenizer.json beside the checkpoint is used and padded to vocab_size.
  write_text(dir.path / "tokenizer.json", R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2},
      "merges": ["a b"]}, "added_tokens": [{"id": 3, "content": "<｜begin▁of▁sentence｜>", "special": true}]})");
  convert_checkpoint({dir.path, dir.path / "b.gguf", std::nullopt, {}, false}, nullptr);
  const auto b = gguf::file::open(dir.path / "b.gguf");
  const auto tokens = b.get_array<std::string>("tokenizer.ggml.tokens");
  ASSERT_EQ(tokens.size(), 512u);
  EXPECT_EQ(tokens[2], "ab");
  EXPECT_EQ(tokens[3], "<｜begin▁of▁sentence｜>");
  EXPECT_EQ(b.get_array<std::string>("tokenizer.ggml.merges"), std::vector<std::string>{"a b"});

  // The byte vocabulary: 256 bytes + 7 prompt tokens, padded.
  convert_options bytes;
  bytes.vocab.source = vocab_source::bytes;
  convert_checkpoint({dir.path, dir.path / "c.gguf", std::nullopt, bytes, false}, nullptr);
  EXPECT_EQ(gguf::file::open(dir.path / "c.gguf").get_array<std::string>("tokenizer.ggml.tokens").size(), 512u);

  // A tokenizer larger than the embedding is refused, naming the file.
  std::string big = R"({"model": {"type": "BPE", "merges": [], "vocab": {)";
  for (int i = 0; i < 600; ++i) big += (i ? "," : "") + std::string("\"t") + std::to_string(i) + "\": " + std::to_string(i);
  big += "}}}";
  write_text(dir.path / "tokenizer.json", big);
  try {
    convert_checkpoint({dir.path, dir.path / "d.gguf", std::nullopt, {}, false}, nullptr);
    ADD_FAILURE() << "no error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("tokenizer.json: 600 tokens, more than the model's vocab_size 512"),
              std::string::npos) << e.what();
  }
}

TEST(Convert, Mxfp4ExpertsQuantizedFromFloatSources) {
  temp_dir dir("hf-mxfp4");
  hf_fixture fx;
  fx.write(dir.path, hf_spelling::in_memory);
  convert_request req{dir.path, dir.path / "out.gguf", std::nullopt, {}, false};
  req.options.experts = ggml_type::mxfp4;
  std::ostringstream log;
  convert_checkpoint(req, &log);
  EXPECT_NE(log.str().find("MXFP4 quantized from F32 values (lossy"), std::string::npos) << log.str();
  const auto f = gguf::file::open(dir.path / "out.gguf");
  for (const auto& [name, e] : fx.expected) check_tensor(f, name, e, default_type_of(name, e.kind));
}

// ---- errors: each names what is wrong and where ------------------------------------------------

std::string conversion_error(const std::filesystem::path& dir, const convert_options& opts = {}) {
  try {
    convert_checkpoint({dir, dir / "out.gguf", std::nullopt, opts, false}, nullptr);
  } catch (const std::exception& e) {
    EXPECT_FALSE(std::filesystem::exists(dir / "out.gguf")) << "no output on failure";
    return e.what();
  }
  return "<no error>";
}

void rewrite_entries(const std::filesystem::path& file,
                     const std::function<void(std::vector<st_entry>&)>& edit) {
  const auto ck = checkpoint::open(file);
  std::vector<st_entry> entries;
  for (const auto& [name, t] : ck.tensors())
    entries.push_back({name, std::string(st_dtype_name(t.dtype)), t.shape, ck.read_all(t)});
  edit(entries);
  write_safetensors(file, entries);
}

TEST(ConvertErrors, MissingShapeUnknownAndDtypeProblemsNameTheTensor) {
  temp_dir dir("errors");
  hf_fixture fx;
  fx.write(dir.path, hf_spelling::save_pretrained);
  const auto file = dir.path / "model.safetensors";
  const auto original = checkpoint::open(file);
  std::vector<st_entry> pristine;
  for (const auto& [name, t] : original.tensors())
    pristine.push_back({name, std::string(st_dtype_name(t.dtype)), t.shape, original.read_all(t)});
  const auto restore = [&] { write_safetensors(file, pristine); };

  rewrite_entries(file, [](auto& es) {
    std::erase_if(es, [](const st_entry& e) { return e.name == "model.layers.2.attn.indexer.wq_b.weight"; });
  });
  auto m = conversion_error(dir.path);
  EXPECT_NE(m.find("'layers.2.attn.indexer.wq_b.weight'"), std::string::npos) << m;
  EXPECT_NE(m.find("blk.2.indexer.attn_q_b.weight"), std::string::npos) << m;
  EXPECT_NE(m.find("compress ratio 4"), std::string::npos) << m;

  restore();
  rewrite_entries(file, [](auto& es) {
    es.push_back({"model.layers.1.attn.mystery.weight", "F32", {2}, std::vector<std::byte>(8)});
  });
  m = conversion_error(dir.path);
  EXPECT_NE(m.find("model.safetensors: tensor 'model.layers.1.attn.mystery.weight': unrecognized"),
            std::string::npos) << m;

  restore();
  rewrite_entries(file, [](auto& es) {
    for (auto& e : es)
      if (e.name == "model.layers.1.attn.wkv.weight") e.shape = {e.shape[1], e.shape[0]};
  });
  m = conversion_error(dir.path);
  EXPECT_NE(m.find("tensor 'model.layers.1.attn.wkv.weight': shape [256, 128] but config.json implies [128, 256]"),
            std::string::npos) << m;

  restore();
  rewrite_entries(file, [](auto& es) {
    for (auto& e : es)
      if (e.name == "model.layers.3.attn.wq_a.weight") {
        e.dtype = "F8_E4M3";
        e.data.resize(e.data.size() / 4);
      }
  });
  m = conversion_error(dir.path);
  EXPECT_NE(m.find("'model.layers.3.attn.wq_a.weight': FP8 weight without its block scale 'layers.3.attn.wq_a.scale'"),
            std::string::npos) << m;

  restore();
  rewrite_entries(file, [](auto& es) {
    std::erase_if(es, [](const st_entry& e) { return e.name == "model.layers.3.ffn.experts.2.w3.weight"; });
  });
  m = conversion_error(dir.path);
  EXPECT_NE(m.find("layer 3 expert 2 w3 is missing"), std::string::npos) << m;

  // A config that disagrees with the tensors.
  restore();
  auto cfg = nlohmann::json::parse(hf_config(fx.d));
  cfg["layer_types"][3] = "compressed_sparse_attention";
  write_text(dir.path / "config.json", cfg.dump());
  m = conversion_error(dir.path);
  EXPECT_NE(m.find("layers.3.attn.compressor"), std::string::npos) << m;
}

TEST(ConvertErrors, Fp4ScaleNanIsRefusedDuringTheWrite) {
  temp_dir dir("fp4-nan");
  official_fixture fx;
  fx.write(dir.path);
  const auto shard = dir.path / "model-00001-of-00002.safetensors";
  std::string scale_name;
  rewrite_entries(shard, [&](auto& es) {
    for (auto& e : es)
      if (e.name.ends_with(".w2.scale") && scale_name.empty()) {
        e.data[3] = std::byte{0xff};
        scale_name = e.name;
      }
  });
  ASSERT_FALSE(scale_name.empty());
  const auto m = conversion_error(dir.path);
  EXPECT_NE(m.find("'" + scale_name + "'"), std::string::npos) << m;
  EXPECT_NE(m.find("0xff"), std::string::npos) << m;
}

}  // namespace
}  // namespace ordo::convert
