// `ordo inspect` (src/inspect): class patterns, bytes per class, the report and exit status.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <algorithm>
#include <regex>

#include "inspect/checks.hpp"
#include "inspect/inspect.hpp"

namespace ordo::inspect {
namespace {

using namespace ordo::gguf;
namespace fs = std::filesystem;

std::string read_all(std::FILE* f) {
  std::rewind(f);
  std::string s;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) s.append(buf, n);
  return s;
}

struct report {
  int status;
  std::string out, err;
};

report inspect_file(const fs::path& p, options opt = {}) {
  std::FILE* out = std::tmpfile();
  std::FILE* err = std::tmpfile();
  report r{run(p, opt, out, err), "", ""};
  r.out = read_all(out);
  r.err = read_all(err);
  std::fclose(out);
  std::fclose(err);
  return r;
}

TEST(inspect, class_patterns_replace_numeric_components) {
  EXPECT_EQ(class_pattern("blk.12.ffn_gate_exps.weight"), "blk.*.ffn_gate_exps.weight");
  EXPECT_EQ(class_pattern("mtp.0.hc_head_fn.weight"), "mtp.*.hc_head_fn.weight");
  EXPECT_EQ(class_pattern("token_embd.weight"), "token_embd.weight");
  EXPECT_EQ(class_pattern("blk.1x.w"), "blk.1x.w");
  EXPECT_EQ(class_pattern("a..b.7"), "a..b.*");
}

TEST(inspect, glob_match) {
  EXPECT_TRUE(glob_match("blk.*.ffn_*_exps.weight", "blk.12.ffn_gate_exps.weight"));
  EXPECT_TRUE(glob_match("blk.*.ffn_*_exps.weight", "blk.0.ffn_down_exps.weight"));
  EXPECT_FALSE(glob_match("blk.*.ffn_*_exps.weight", "blk.0.ffn_down_shexp.weight"));
  EXPECT_FALSE(glob_match("blk.*.ffn_*_exps.weight", "blk.0.ffn_down_exps.bias"));
  EXPECT_TRUE(glob_match("*", ""));
  EXPECT_TRUE(glob_match("a?c", "abc"));
  EXPECT_FALSE(glob_match("a?c", "ac"));
  EXPECT_TRUE(glob_match("*a*a*a*b", "aaaaaaaaaaaaaaaaaaab"));
  EXPECT_FALSE(glob_match("*a*a*a*b", "aaaaaaaaaaaaaaaaaaaa"));
  EXPECT_FALSE(glob_match("", "x"));
}

struct model_file {
  fs::path path = fs::temp_directory_path() / ("ordo_inspect_" + std::to_string(::getpid()) + ".gguf");
  model_file() {
    std::vector<tensor_spec> t{{"token_embd.weight", ggml_type::f16, {64, 4}},
                               {"blk.0.ffn_gate_exps.weight", ggml_type::q4_k, {256, 2, 2}},
                               {"blk.1.ffn_gate_exps.weight", ggml_type::q4_k, {256, 2, 2}},
                               {"blk.1.attn_norm.weight", ggml_type::f32, {8}}};
    std::vector<std::vector<std::byte>> d;
    for (const auto& s : t) d.emplace_back(tensor_nbytes(s.type, s.dims));
    std::vector<uint32_t> many(100);
    write_file(path,
               // Not deepseek4: this fixture is a generic GGUF (a deepseek4 one must be a whole model).
               {{"general.architecture", value::string("llama")},
                {"tokenizer.ggml.token_type", value::array_of(many)}},
               t, d);
  }
  ~model_file() { fs::remove(path); }
};

TEST(inspect, classes_group_layers_and_sort_by_bytes) {
  model_file m;
  const auto classes = tensor_classes(file::open(m.path));
  ASSERT_EQ(classes.size(), 3u);
  EXPECT_EQ(classes[0].pattern, "blk.*.ffn_gate_exps.weight");
  EXPECT_EQ(classes[0].count, 2u);
  EXPECT_EQ(classes[0].bytes, 2u * (144 * 2 * 2));
  EXPECT_EQ(classes[0].types, std::vector<ggml_type>{ggml_type::q4_k});
  EXPECT_EQ(classes[1].pattern, "token_embd.weight");
  EXPECT_EQ(classes[1].bytes, 64u * 4 * 2);
  EXPECT_EQ(classes[2].pattern, "blk.*.attn_norm.weight");
}

TEST(inspect, report_lists_metadata_tensors_classes_and_result) {
  model_file m;
  options opt;
  opt.max_array_items = 3;
  const auto r = inspect_file(m.path, opt);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  for (const char* want : {"2 metadata keys, 4 tensors", "\"llama\"", "[u32 x 100: 0, 0, 0, ...]",
                           "blk.1.attn_norm.weight", "q4_K", "[256, 2, 2]",
                           "blk.*.ffn_gate_exps.weight", "result      valid"})
    EXPECT_NE(r.out.find(want), std::string::npos) << "missing '" << want << "' in\n" << r.out;
  opt.groups = {"blk.*.ffn_*_exps.weight", "nothing*"};
  const auto grouped = inspect_file(m.path, opt);
  const auto at = grouped.out.find("groups asked for:");
  ASSERT_NE(at, std::string::npos) << grouped.out;
  // Two q4_K expert tensors of 576 bytes each; the second glob matches nothing.
  EXPECT_TRUE(std::regex_search(grouped.out.substr(at),
                                std::regex(R"(blk\.\*\.ffn_\*_exps\.weight +2 +q4_K +1\.1\d KiB)")))
      << grouped.out;
  EXPECT_NE(grouped.out.find("nothing*", at), std::string::npos);
  opt.groups.clear();
  opt.show_metadata = opt.show_tensors = false;
  const auto brief = inspect_file(m.path, opt);
  EXPECT_EQ(brief.out.find("\"llama\""), std::string::npos);
  EXPECT_EQ(brief.out.find("[256, 2, 2]"), std::string::npos);
  EXPECT_NE(brief.out.find("blk.*.ffn_gate_exps.weight"), std::string::npos);
}

// A deepseek4 file is valid only as a whole model: a container with the architecture and nothing
// else (issue 7) fails the ds4 check, each missing piece named.
TEST(inspect, ds4_check_names_what_a_deepseek4_file_lacks) {
  const fs::path path = fs::temp_directory_path() / ("ordo_inspect_empty_ds4_" + std::to_string(::getpid()) + ".gguf");
  write_file(path, {{"general.architecture", value::string("deepseek4")}}, {}, {});
  const auto f = file::open(path);
  const auto r = check_ds4_model(f);
  EXPECT_FALSE(r.ok());
  for (const char* want : {"metadata key 'deepseek4.block_count' is missing",
                           "metadata key 'deepseek4.embedding_length' is missing", "the file has no tensors"})
    EXPECT_NE(std::find(r.problems.begin(), r.problems.end(), want), r.problems.end()) << want;
  const auto report = inspect_file(path);
  EXPECT_EQ(report.status, 1);
  EXPECT_NE(report.out.find("result      INVALID"), std::string::npos) << report.out;
  fs::remove(path);
}

TEST(inspect, ds4_check_only_notes_other_architectures) {
  model_file m;
  const auto r = check_ds4_model(file::open(m.path));
  EXPECT_TRUE(r.ok());
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("not a deepseek4 model"), std::string::npos) << r.notes[0];
}

TEST(inspect, invalid_file_gives_status_1_and_the_reader_message) {
  const auto r = inspect_file(fs::path(ORDO_GGUF_CORPUS_DIR) / "bad_overlap.gguf");
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("invalid GGUF: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("overlap"), std::string::npos) << r.err;
}

TEST(inspect, layout_check_notes_gaps_and_order) {
  const auto f = file::open(fs::path(ORDO_GGUF_CORPUS_DIR) / "ok_tensors_out_of_order.gguf");
  const auto r = check_layout(f);
  EXPECT_TRUE(r.ok());
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_EQ(r.notes[0], "tensor data is not in table order");
}

}  // namespace
}  // namespace ordo::inspect
