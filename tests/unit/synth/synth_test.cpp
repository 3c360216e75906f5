// ordo synth: same arguments → same bytes; files open as DS4 models in both conventions; the
// conditioning recipe of docs/synth.md holds on the generated values; bad arguments name the flag
// or tensor at fault.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "ordo/model/ds4_model_view.hpp"
#include "ordo/model/gguf.hpp"
#include "ordo/quant/formats.hpp"
#include "synth/generate.hpp"
#include "synth/synth.hpp"

namespace {

using namespace ordo;
namespace fs = std::filesystem;

fs::path scratch_dir() { return fs::temp_directory_path() / ("ordo_synth_test_" + std::to_string(::getpid())); }

fs::path scratch(const std::string& name) {
  fs::create_directories(scratch_dir());
  return scratch_dir() / name;
}

// Removes the scratch folder after the last test.
struct scratch_cleanup : ::testing::Environment {
  void TearDown() override { fs::remove_all(scratch_dir()); }
};
[[maybe_unused]] auto* const cleanup = ::testing::AddGlobalTestEnvironment(new scratch_cleanup);

std::vector<char> slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

uint64_t fnv1a(const void* data, std::size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (std::size_t i = 0; i < n; ++i) h = (h ^ static_cast<const unsigned char*>(data)[i]) * 0x100000001b3ull;
  return h;
}

synth::options tiny(const std::string& file) {
  synth::options o;
  o.out = scratch(file);
  return o;
}

void write_all(const synth::options& o) {
  for (const auto& f : synth::make_plan(o).files) synth::write_file(f, o.seed);
}

const synth::planned_tensor& find(const synth::plan& p, const std::string& name, std::size_t file = 0) {
  for (const auto& t : p.files.at(file).tensors)
    if (t.spec.name == name) return t;
  throw std::runtime_error("no planned tensor " + name);
}

TEST(synth, same_arguments_same_bytes) {
  // Two layers (ratios 4 and 128) keep every tensor kind while writing fast in debug builds.
  const std::vector<std::pair<std::string, std::string>> two = {{"block_count", "2"},
                                                                {"attention.compress_ratios", "4,128"}};
  synth::options a = tiny("a.gguf"), b = tiny("b.gguf"), c = tiny("c.gguf");
  a.overrides = b.overrides = c.overrides = two;
  a.mtp = b.mtp = c.mtp = true;
  a.dense = b.dense = c.dense = gguf::ggml_type::q8_0;  // fewer, larger blocks: fast in debug
  a.experts = b.experts = c.experts = gguf::ggml_type::mxfp4;
  a.seed = b.seed = 5;
  c.seed = 6;
  write_all(a);
  write_all(b);
  write_all(c);
  for (const char* suffix : {"", "-mtp"}) {
    auto with = [&](const synth::options& o) { return o.out.parent_path() / (o.out.stem().string() + suffix + ".gguf"); };
    const auto ba = slurp(with(a)), bb = slurp(with(b)), bc = slurp(with(c));
    ASSERT_GT(ba.size(), 1000000u) << suffix;
    EXPECT_EQ(fnv1a(ba.data(), ba.size()), fnv1a(bb.data(), bb.size())) << suffix;
    EXPECT_EQ(ba.size(), bc.size()) << suffix;
    EXPECT_NE(fnv1a(ba.data(), ba.size()), fnv1a(bc.data(), bc.size())) << suffix;
  }
}

// Hash gate (E5): tensor bytes are a function of (seed, name, recipe, format) only. If this
// changes, every synthetic fixture and recorded logit changes with it: update deliberately.
TEST(synth, tensor_bytes_hash_gate) {
  const synth::plan p = synth::make_plan(tiny("gate.gguf"));
  const auto bytes = synth::tensor_bytes(find(p, "blk.0.attn_q_a.weight"), 0);
  EXPECT_EQ(bytes.size(), 256u * 128 * 4);
  const float first = *reinterpret_cast<const float*>(bytes.data());
  EXPECT_LT(std::abs(first), std::sqrt(3.0f / 256));  // uniform within ±sqrt(3)·stddev
  EXPECT_EQ(fnv1a(bytes.data(), bytes.size()), 0xde3948b0ad1404f9ull);
}

TEST(synth, rows_do_not_depend_on_chunking) {
  const synth::plan p = synth::make_plan(tiny("rows.gguf"));
  for (const char* name : {"blk.1.ffn_gate_exps.weight", "token_embd.weight", "blk.0.ffn_gate_tid2eid.weight"}) {
    const auto& t = find(p, name);
    const auto whole = synth::tensor_bytes(t, 3);
    const uint64_t rb = synth::row_bytes(t.spec);
    std::vector<std::byte> part(5 * rb);
    synth::fill_rows(t, 3, 7, 5, part.data());
    EXPECT_TRUE(std::equal(part.begin(), part.end(), whole.begin() + 7 * rb)) << name;
  }
}

TEST(synth, files_open_as_ds4_models) {
  for (model::ds4_naming n : {model::ds4_naming::ds4, model::ds4_naming::llama}) {
    synth::options o = tiny(std::string("open_") + std::string(model::to_string(n)) + ".gguf");
    o.naming = n;
    o.mtp = true;
    o.dense = gguf::ggml_type::q8_0;
    o.experts = gguf::ggml_type::mxfp4;
    const synth::plan p = synth::make_plan(o);
    ASSERT_EQ(p.files.size(), n == model::ds4_naming::ds4 ? 2u : 1u);
    write_all(o);
    const gguf::file main = gguf::file::open(p.files[0].path);
    std::optional<gguf::file> side;
    if (p.files.size() == 2) side.emplace(gguf::file::open(p.files[1].path));
    const auto view = model::open_ds4(main, n, side ? &*side : nullptr);
    EXPECT_EQ(view.hparams.n_layer, 4u);
    EXPECT_EQ(view.hparams.n_vocab, 512u);
    ASSERT_TRUE(view.mtp.has_value());
    EXPECT_EQ(view.layers[1].get(model::ds4_role::attn_q_b)->type, gguf::ggml_type::q8_0);
    EXPECT_EQ(view.layers[1].get(model::ds4_role::hc_attn_fn)->type, gguf::ggml_type::f16);  // ds4's F16 set
    EXPECT_EQ(view.layers[1].get(model::ds4_role::ffn_up_exps)->type, gguf::ggml_type::mxfp4);
    // The file holds exactly what tensor_bytes generates.
    const auto* t = view.layers[2].get(model::ds4_role::attn_compressor_gate);
    const auto expect = synth::tensor_bytes(find(p, t->name), o.seed);
    ASSERT_EQ(t->bytes().size(), expect.size());
    EXPECT_TRUE(std::equal(expect.begin(), expect.end(), t->bytes().begin()));
  }
}

// With q8_0 dense and a ds4 expert type, synth writes antirez/ds4's fixed layout; float dense
// types are an ordo/llama.cpp-only layout.
TEST(synth, q8_0_dense_files_have_the_ds4_layout) {
  synth::options o = tiny("layout.gguf");
  o.dense = gguf::ggml_type::q8_0;
  o.experts = gguf::ggml_type::q4_k;
  o.overrides = {{"expert_feed_forward_length", "256"}};
  o.mtp = true;
  const synth::plan p = synth::make_plan(o);
  write_all(o);
  const gguf::file main = gguf::file::open(p.files[0].path);
  const gguf::file side = gguf::file::open(p.files[1].path);
  const auto view = model::open_ds4(main, model::ds4_naming::ds4, &side);
  EXPECT_EQ(model::ds4_layout_mismatches(view), std::vector<std::string>{});

  synth::options f = tiny("layout_f32.gguf");
  write_all(f);
  const gguf::file ff = gguf::file::open(f.out);
  const auto mism = model::ds4_layout_mismatches(model::open_ds4(ff, model::ds4_naming::ds4));
  ASSERT_FALSE(mism.empty());
  EXPECT_EQ(mism.front(), "token_embd.weight: type f32 (antirez/ds4 expects f16)");
}

struct stats {
  double mean = 0, sd = 0;
};

stats dequant_stats(const synth::planned_tensor& t, uint64_t seed) {
  const auto bytes = synth::tensor_bytes(t, seed);
  std::vector<float> v;
  const auto* fmt = quant::find_format(static_cast<uint32_t>(t.spec.type));
  const std::size_t blocks = bytes.size() / fmt->block_bytes;
  v.resize(blocks * fmt->block_elems);
  auto each = [&]<class F>(F) {
    for (std::size_t b = 0; b < blocks; ++b) {
      typename F::block blk;
      std::memcpy(&blk, bytes.data() + b * F::block_bytes, F::block_bytes);
      F::dequant(blk, v.data() + b * F::block_elems);
    }
  };
  switch (t.spec.type) {
    case gguf::ggml_type::f32: each(quant::f32{}); break;
    case gguf::ggml_type::q8_0: each(quant::q8_0{}); break;
    case gguf::ggml_type::mxfp4: each(quant::mxfp4{}); break;
    case gguf::ggml_type::q4_k: each(quant::q4_k{}); break;
    case gguf::ggml_type::q2_k: each(quant::q2_k{}); break;
    case gguf::ggml_type::iq2_xxs: each(quant::iq2_xxs{}); break;
    default: ADD_FAILURE() << "no dequant for " << t.spec.name;
  }
  stats s;
  for (float x : v) s.mean += x;
  s.mean /= double(v.size());
  for (float x : v) s.sd += (x - s.mean) * (x - s.mean);
  s.sd = std::sqrt(s.sd / double(v.size()));
  return s;
}

TEST(synth, recipe_scales_hold) {
  const synth::plan p = synth::make_plan(tiny("recipe.gguf"));
  // Projections: stddev 1/sqrt(fan_in) (f32: uniform, so within a few percent).
  const stats qa = dequant_stats(find(p, "blk.0.attn_q_a.weight"), 1);
  EXPECT_NEAR(qa.sd, 1.0 / 16.0, 0.05 / 16.0);
  EXPECT_NEAR(qa.mean, 0.0, 0.01 / 16.0);
  // Residual writers get the extra 1/sqrt(2·n_layer).
  const stats down = dequant_stats(find(p, "blk.1.ffn_down_exps.weight"), 1);
  EXPECT_NEAR(down.sd, 1.0 / std::sqrt(128.0) / std::sqrt(8.0), 0.003);
  // Norm weights near 1.
  const stats norm = dequant_stats(find(p, "blk.2.attn_norm.weight"), 1);
  EXPECT_NEAR(norm.mean, 1.0, 0.02);
  EXPECT_LT(norm.sd, 0.1);
  // HC bias: comb diagonal near 1, everything else near 0.
  const auto base = synth::tensor_bytes(find(p, "blk.0.hc_attn_base.weight"), 1);
  const float* b = reinterpret_cast<const float*>(base.data());
  for (int i = 0; i < 24; ++i) {
    const bool diag = i >= 8 && (i - 8) % 4 == (i - 8) / 4;
    EXPECT_NEAR(b[i], diag ? 1.0f : 0.0f, 0.1f) << i;
  }
}

TEST(synth, quantized_experts_are_roughly_centered_at_the_target_scale) {
  for (auto type : {gguf::ggml_type::q8_0, gguf::ggml_type::mxfp4, gguf::ggml_type::q4_k, gguf::ggml_type::q2_k,
                    gguf::ggml_type::iq2_xxs}) {
    synth::options o = tiny("quant.gguf");
    o.experts = type;
    o.overrides = {{"expert_feed_forward_length", "256"}};
    const synth::plan p = synth::make_plan(o);
    const stats s = dequant_stats(find(p, "blk.1.ffn_gate_exps.weight"), 2);
    const double target = 1.0 / 16.0;  // fan_in 256
    std::printf("%s sd/target %.3f mean/target %.3f\n", gguf::to_string(type).c_str(), s.sd / target, s.mean / target);
    EXPECT_GT(s.sd, 0.6 * target) << gguf::to_string(type);
    EXPECT_LT(s.sd, 1.5 * target) << gguf::to_string(type);
    // K-quants keep a mean from their random min offsets (docs/synth.md).
    EXPECT_LT(std::abs(s.mean), 0.4 * target) << gguf::to_string(type);
  }
}

TEST(synth, hash_routing_table_has_distinct_ids_per_token) {
  const synth::plan p = synth::make_plan(tiny("tid.gguf"));
  const auto bytes = synth::tensor_bytes(find(p, "blk.0.ffn_gate_tid2eid.weight"), 0);
  const int32_t* ids = reinterpret_cast<const int32_t*>(bytes.data());
  std::set<int32_t> used;
  for (int tok = 0; tok < 512; ++tok) {
    std::set<int32_t> row(ids + 6 * tok, ids + 6 * tok + 6);
    EXPECT_EQ(row.size(), 6u) << "token " << tok;
    for (int32_t e : row) {
      EXPECT_GE(e, 0);
      EXPECT_LT(e, 16);
      used.insert(e);
    }
  }
  EXPECT_EQ(used.size(), 16u);
}

TEST(synth, set_and_errors) {
  synth::options o = tiny("set.gguf");
  o.overrides = {{"block_count", "5"}, {"attention.compress_ratios", "0,4,128,4,128"}, {"expert_count", "8"},
                 {"expert_used_count", "3"}};
  const synth::plan p = synth::make_plan(o);
  EXPECT_EQ(p.hparams.n_layer, 5u);
  EXPECT_EQ(p.hparams.compress_ratios, (std::vector<uint32_t>{0, 4, 128, 4, 128}));
  EXPECT_EQ(find(p, "blk.4.ffn_gate_exps.weight").spec.dims, (std::vector<uint64_t>{256, 128, 8}));

  auto error_of = [](const synth::options& bad) -> std::string {
    try {
      synth::make_plan(bad);
    } catch (const std::exception& e) {
      return e.what();
    }
    return "";
  };
  synth::options k = tiny("k.gguf");
  k.experts = gguf::ggml_type::q4_k;  // expert width 128 is not a whole q4_K block
  EXPECT_NE(error_of(k).find("ffn_down_exps.weight: row length 128 is not a multiple of the q4_k block"),
            std::string::npos)
      << error_of(k);
  synth::options d = tiny("d.gguf");
  d.dense = gguf::ggml_type::q4_k;
  EXPECT_NE(error_of(d).find("--dense q4_K: not supported"), std::string::npos) << error_of(d);
  synth::options r = tiny("r.gguf");
  r.overrides = {{"attention.compress_ratios", "0,0,4,64"}};
  EXPECT_NE(error_of(r).find("attention.compress_ratios[3] = 64"), std::string::npos) << error_of(r);
  synth::options v = tiny("v.gguf");
  v.overrides = {{"vocab_size", "100"}};
  EXPECT_NE(error_of(v).find("smaller than the byte vocabulary"), std::string::npos) << error_of(v);
}

}  // namespace
