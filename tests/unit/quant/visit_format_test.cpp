// quant::visit_format: the one ggml type id → format tag dispatch. The expected ids and names are
// ggml.h's enum ggml_type, written out here by hand, not read from the format tags under test.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "ordo/quant/visit_format.hpp"

namespace q = ordo::quant;

namespace {

// ggml.h: GGML_TYPE_F32 = 0, F16 = 1, Q8_0 = 8, Q2_K = 10, Q4_K = 12, IQ2_XXS = 16, BF16 = 30,
// MXFP4 = 39 — the weight formats ordo reads.
const std::map<std::uint32_t, std::string_view> ggml_weight_types = {
    {0, "f32"}, {1, "f16"}, {8, "q8_0"}, {10, "q2_k"}, {12, "q4_k"}, {16, "iq2_xxs"}, {30, "bf16"}, {39, "mxfp4"}};

// ggml's block geometry of the same types (ggml.c type_traits: blck_size, type_size).
const std::map<std::uint32_t, std::pair<int, int>> ggml_geometry = {
    {0, {1, 4}},    {1, {1, 2}},      {8, {32, 34}},  {10, {256, 84}},
    {12, {256, 144}}, {16, {256, 66}}, {30, {1, 2}},  {39, {32, 17}}};

enum class some_ggml_enum : std::uint32_t { q4_k = 12, q4_0 = 2 };

}  // namespace

TEST(quant_visit_format, maps_every_ordo_ggml_type_to_its_format) {
  int visited = 0;
  for (const auto& [id, name] : ggml_weight_types) {
    const std::string_view got = q::visit_format(id, []<q::quant_format F>(F) { return F::name; });
    EXPECT_EQ(got, name) << "ggml type " << id;
    const auto [elems, bytes] = q::visit_format(id, []<q::quant_format F>(F) {
      static_assert(sizeof(typename F::block) == F::block_bytes);
      return std::pair<int, int>{F::block_elems, F::block_bytes};
    });
    EXPECT_EQ(elems, ggml_geometry.at(id).first) << name;
    EXPECT_EQ(bytes, ggml_geometry.at(id).second) << name;
    EXPECT_EQ(q::visit_format(id, []<q::quant_format F>(F) { return F::ggml_type; }), id) << name;
    ++visited;
  }
  EXPECT_EQ(visited, static_cast<int>(q::all_formats::size));  // every format is reachable by its id
}

TEST(quant_visit_format, every_other_ggml_type_fails_loudly_naming_it) {
  // Every id ggml defines today (0..41) and beyond, and the largest one.
  std::vector<std::uint32_t> ids;
  for (std::uint32_t id = 0; id < 256; ++id) ids.push_back(id);
  ids.push_back(0xffffffffu);
  int rejected = 0;
  for (const std::uint32_t id : ids) {
    if (ggml_weight_types.count(id)) continue;
    bool called = false;
    try {
      q::visit_format(id, [&]<q::quant_format F>(F) { called = true; }, "blk.3.ffn_up_exps.weight");
      ADD_FAILURE() << "ggml type " << id << " was accepted";
    } catch (const q::unsupported_format& e) {
      EXPECT_EQ(e.ggml_type, id);
      const std::string what = e.what();
      EXPECT_NE(what.find("blk.3.ffn_up_exps.weight: ggml type " + std::to_string(id) + " is not"), std::string::npos)
          << what;
      EXPECT_NE(what.find("q4_k = 12"), std::string::npos) << what;  // and says what ordo has
    }
    EXPECT_FALSE(called) << id;
    ++rejected;
  }
  EXPECT_EQ(rejected, static_cast<int>(ids.size()) - 8);
}

TEST(quant_visit_format, unsupported_format_is_an_invalid_argument) {
  EXPECT_THROW(q::visit_format(2u, []<q::quant_format F>(F) {}), std::invalid_argument);
}

TEST(quant_visit_format, accepts_a_ggml_type_enum) {
  EXPECT_EQ(q::visit_format(some_ggml_enum::q4_k, []<q::quant_format F>(F) { return F::name; }), "q4_k");
  EXPECT_THROW(q::visit_format(some_ggml_enum::q4_0, []<q::quant_format F>(F) {}), q::unsupported_format);
}
