// config.json → DS4 hyperparameters, both spellings, and the errors for configs GGUF cannot express.
#include "convert/hf_config.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tiny_checkpoint.hpp"

namespace ordo::convert {
namespace {

using nlohmann::json;

std::string parse_error(const json& j) {
  try {
    parse_hf_config(j, "cfg.json");
  } catch (const std::exception& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(HfConfig, OfficialSpelling) {
  const testing::tiny_dims d;
  const auto hp = parse_hf_config(json::parse(testing::official_config(d)), "cfg.json");
  EXPECT_EQ(hp.n_layer, 4u);
  EXPECT_EQ(hp.n_embd, 256u);
  EXPECT_EQ(hp.n_rot, 64u);
  EXPECT_EQ(hp.compress_ratios, (std::vector<std::int32_t>{0, 0, 4, 128}));
  EXPECT_EQ(hp.n_hash_layers, 1u);
  EXPECT_EQ(hp.n_expert, 4u);
  EXPECT_EQ(hp.n_ff_exp, 64u);
  EXPECT_TRUE(hp.yarn.enabled);
  EXPECT_EQ(hp.yarn.factor, 16.0f);
  EXPECT_EQ(hp.yarn.original_context, 65536u);
  EXPECT_EQ(hp.compress_rope_theta, 160000.0f);
}

TEST(HfConfig, HfSpellingMatchesTheOfficialOne) {
  const testing::tiny_dims d;
  const auto a = parse_hf_config(json::parse(testing::official_config(d)), "a");
  const auto b = parse_hf_config(json::parse(testing::hf_config(d)), "b");
  EXPECT_EQ(a.compress_ratios, b.compress_ratios);
  EXPECT_EQ(a.n_hash_layers, b.n_hash_layers);
  EXPECT_EQ(a.n_rot, b.n_rot);
  EXPECT_EQ(a.rope_theta, b.rope_theta);
  EXPECT_EQ(a.compress_rope_theta, b.compress_rope_theta);
  EXPECT_EQ(a.yarn.enabled, b.yarn.enabled);
  EXPECT_EQ(a.yarn.factor, b.yarn.factor);
  EXPECT_EQ(a.yarn.original_context, b.yarn.original_context);
  EXPECT_EQ(a.yarn.beta_fast, b.yarn.beta_fast);
  EXPECT_EQ(a.yarn.beta_slow, b.yarn.beta_slow);
}

// HF without rope_parameters runs compressed layers with plain RoPE; the file says YaRN with
// factor 1, which is the same rotation (and what the engine's loader accepts).
TEST(HfConfig, WithoutRopeScalingCompressedLayersGetYarnFactorOne) {
  auto j = json::parse(testing::hf_config(testing::tiny_dims{}));
  j.erase("rope_parameters");
  const auto hp = parse_hf_config(j, "cfg.json");
  EXPECT_FALSE(hp.yarn.enabled);
  const auto md = ds4_metadata(hp, "x");
  const auto get = [&](const char* key) {
    const auto it = std::find_if(md.begin(), md.end(), [&](const auto& kv) { return kv.key == key; });
    EXPECT_NE(it, md.end()) << key;
    return it == md.end() ? gguf::value() : it->val;
  };
  EXPECT_EQ(get("deepseek4.rope.scaling.type").as_string(), "yarn");
  EXPECT_EQ(get("deepseek4.rope.scaling.factor").to_f32(), 1.0f);
  EXPECT_EQ(get("general.name").as_string(), "x");
}

TEST(HfConfig, FlatRopeParametersAndHfFallbacks) {
  auto j = json::parse(testing::hf_config(testing::tiny_dims{}));
  // HF before the main/compress split: one flat dict; no original length → max_position_embeddings.
  j["rope_parameters"] = {{"rope_type", "yarn"}, {"factor", 4.0}, {"beta_fast", 16.0}};
  const auto hp = parse_hf_config(j, "cfg.json");
  EXPECT_TRUE(hp.yarn.enabled);
  EXPECT_EQ(hp.yarn.factor, 4.0f);
  EXPECT_EQ(hp.yarn.beta_fast, 16.0f);
  EXPECT_EQ(hp.yarn.beta_slow, 1.0f);
  EXPECT_EQ(hp.yarn.original_context, 4096u);
  // Legacy scalar compress rate overrides fold in as HF does.
  j.erase("compress_rates");
  j["compress_rate_hca"] = 64;
  EXPECT_EQ(parse_hf_config(j, "cfg.json").compress_ratios, (std::vector<std::int32_t>{0, 0, 4, 64}));
}

TEST(HfConfig, ErrorsNameTheFileAndKey) {
  auto j = json::parse(testing::hf_config(testing::tiny_dims{}));
  j.erase("layer_types");
  auto m = parse_error(j);
  EXPECT_NE(m.find("cfg.json: neither \"layer_types\" nor \"compress_ratios\""), std::string::npos) << m;

  j = json::parse(testing::hf_config(testing::tiny_dims{}));
  j["mlp_layer_types"] = {"moe", "hash_moe", "moe", "moe"};
  m = parse_error(j);
  EXPECT_NE(m.find("hash_moe at layer 1"), std::string::npos) << m;

  j = json::parse(testing::hf_config(testing::tiny_dims{}));
  j["layer_types"] = {"sliding_attention", "sliding_attention"};
  m = parse_error(j);
  EXPECT_NE(m.find("2 entries for 4 layers"), std::string::npos) << m;

  j = json::parse(testing::hf_config(testing::tiny_dims{}));
  j["scoring_func"] = "relu";
  EXPECT_NE(parse_error(j).find("\"relu\""), std::string::npos);

  j = json::parse(testing::hf_config(testing::tiny_dims{}));
  j.erase("hidden_size");
  EXPECT_NE(parse_error(j).find("cfg.json: missing \"hidden_size\""), std::string::npos);

  j = json::parse(testing::hf_config(testing::tiny_dims{}));
  j["rope_parameters"]["compress"]["attention_factor"] = 1.277;
  EXPECT_NE(parse_error(j).find("attention_factor"), std::string::npos);
}

}  // namespace
}  // namespace ordo::convert
