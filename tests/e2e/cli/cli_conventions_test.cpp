// Every subcommand: usage errors exit 2 naming the flag, runtime errors exit 1 as
// "ordo <cmd>: <what failed>: <why>"; `ordo --version` / `-V`; eval checks --dump-logits before
// the pass; synth checks free space first and removes its .partial file when interrupted;
// inspect validates the DS4 model description, not only the container.
#include <gtest/gtest.h>

#include <string>

#include "ordo/model/ds4_hparams.hpp"
#include "ordo/model/gguf.hpp"
#include "support/process.hpp"

namespace {

namespace fs = std::filesystem;
using ordo::e2e::process_result;

const ordo::e2e::scratch_dir& scratch() {
  static const ordo::e2e::scratch_dir dir("ordo_cli_conventions");
  return dir;
}

process_result ordo_run(std::vector<std::string> args, ordo::e2e::process_options o = {}) {
  args.insert(args.begin(), ORDO_BIN);
  o.env.emplace_back("ORDO_CACHE", (scratch().path / "cache").string());
  return ordo::e2e::run_process(args, o);
}

fs::path garbage_file() {
  const fs::path p = scratch().path / "garbage.gguf";
  std::ofstream(p) << "this is not a GGUF file";
  return p;
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

TEST(cli_conventions, version_flags) {
  for (const char* flag : {"--version", "-V", "version"}) {
    const auto r = ordo_run({flag});
    EXPECT_EQ(r.status, 0) << flag << ": " << r.err;
    EXPECT_TRUE(starts_with(r.out, "ordo 0.")) << flag << ": " << r.out;
  }
}

TEST(cli_conventions, an_unknown_flag_is_named_with_exit_2_by_every_subcommand) {
  for (const char* cmd : {"generate", "chat", "eval", "synth", "convert", "inspect", "tokenize", "specs", "version"}) {
    const auto r = ordo_run({cmd, "--bogus"});
    EXPECT_EQ(r.status, 2) << cmd << ": " << r.err;
    EXPECT_TRUE(starts_with(r.err, std::string("ordo ") + cmd + ": ")) << cmd << ": " << r.err;
    EXPECT_NE(r.err.find("--bogus"), std::string::npos) << cmd << ": " << r.err;
  }
}

TEST(cli_conventions, usage_errors_after_parsing_exit_2_naming_the_flag) {
  struct item {
    std::vector<std::string> args;
    std::string flag;
  };
  const std::string out = (scratch().path / "x.gguf").string();
  for (const item& i : std::vector<item>{
           {{"synth", "--dense", "nonsense", "-o", out}, "--dense"},
           {{"synth", "--set", "novalue", "-o", out}, "--set"},
           {{"generate", "-p", "hi", "--think", "sideways"}, "--think"},
           {{"generate", "-p", "hi", "-c", "0"}, "--ctx"},
           {{"generate", "-p", "hi", "--backend", "nowhere"}, "--backend"},
           {{"chat", "-c", "0"}, "--ctx"},
           {{"eval", "-m", garbage_file().string(), "--prompt-ids", "1", "--chunk", "0"}, "--chunk"},
           {{"eval", "-m", garbage_file().string(), "--gen", "-1", "--prompt-ids", "1"}, "--gen"},
           {{"eval", "-m", garbage_file().string()}, "--prompt-ids"},
           {{"tokenize", "-m", garbage_file().string()}, "--text"},
           {{"convert", scratch().path.string()}, "--out"},
       }) {
    const auto r = ordo_run(i.args);
    EXPECT_EQ(r.status, 2) << i.args[0] << " " << i.flag << ": " << r.err;
    EXPECT_TRUE(starts_with(r.err, "ordo " + i.args[0] + ": ")) << r.err;
    EXPECT_NE(r.err.find(i.flag), std::string::npos) << r.err;
  }
}

TEST(cli_conventions, runtime_errors_exit_1_as_ordo_cmd_what_why) {
  const std::string bad = garbage_file().string();
  struct item {
    std::vector<std::string> args;
    std::string prefix;
  };
  for (const item& i : std::vector<item>{
           {{"generate", "-m", bad, "-p", "hi"}, "ordo generate: loading model " + bad + ": "},
           {{"chat", "-m", bad}, "ordo chat: loading model " + bad + ": "},
           {{"eval", "-m", bad, "--prompt-ids", "1"}, "ordo eval: loading model " + bad + ": "},
           {{"tokenize", "-m", bad, "--text", "hi"}, "ordo tokenize: reading the tokenizer of " + bad + ": "},
           {{"inspect", bad}, "ordo inspect: " + bad + ": "},
           {{"convert", bad, "-o", (scratch().path / "c.gguf").string()}, "ordo convert: converting " + bad + ": "},
       }) {
    const auto r = ordo_run(i.args);
    EXPECT_EQ(r.status, 1) << i.args[0] << ": " << r.err;
    EXPECT_TRUE(starts_with(r.err, i.prefix)) << "expected prefix: " << i.prefix << "\ngot: " << r.err;
  }
}

TEST(cli_conventions, eval_checks_dump_logits_before_the_pass) {
  // A million greedy tokens would take hours: failing within seconds means before the work.
  const auto r = ordo_run({"eval", "-m", garbage_file().string(), "--prompt-ids", "1,2", "--gen", "1000000",
                           "--dump-logits", (scratch().path / "no" / "such" / "dir" / "x.ordl").string()});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("ordo eval: --dump-logits"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
  EXPECT_LT(r.seconds, 10.0);
}

TEST(cli_conventions, synth_refuses_a_file_larger_than_the_free_space_before_writing_it) {
  // 4000 layers of the full preset are about 14 TB: more than any test machine's disk.
  const fs::path out = scratch().path / "huge.gguf";
  const auto r = ordo_run({"synth", "-q", "--preset", "full", "--set", "block_count=4000", "-o", out.string()});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("ordo synth: writing " + out.string() + ": needs "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("GiB free"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(out.string() + ".partial"));
  EXPECT_LT(r.seconds, 30.0);
}

TEST(cli_conventions, an_interrupted_synth_removes_its_partial_file) {
  for (const int sig : {SIGINT, SIGTERM}) {
    const fs::path out = scratch().path / ("small-" + std::to_string(sig) + ".gguf");
    const std::string partial = out.string() + ".partial";
    ordo::e2e::process_options o;
    o.send = sig;
    o.signal_when = [&](const std::string&, const std::string&) { return fs::exists(partial); };
    const auto r = ordo_run({"synth", "-q", "--preset", "small", "-o", out.string()}, o);
    ASSERT_TRUE(r.sent_signal) << "finished before the signal: " << r.err;
    EXPECT_EQ(r.signal, 0) << "killed by signal " << sig << " instead of cleaning up";
    EXPECT_EQ(r.status, 128 + sig) << r.err;
    EXPECT_NE(r.err.find("ordo synth: interrupted"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(partial)) << "signal " << sig;
    EXPECT_FALSE(fs::exists(out)) << "signal " << sig;
  }
}

TEST(cli_conventions, inspect_reports_a_deepseek4_file_without_model_description_invalid) {
  const fs::path empty = scratch().path / "empty-ds4.gguf";
  ordo::gguf::write_file(empty, {{"general.architecture", ordo::gguf::value::string("deepseek4")}}, {}, {});
  const auto r = ordo_run({"inspect", empty.string()});
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("ds4      FAILED"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("problem: metadata key 'deepseek4.block_count' is missing"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("problem: metadata key 'deepseek4.embedding_length' is missing"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("problem: the file has no tensors"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("result      INVALID"), std::string::npos) << r.out;

  // The same check passes a complete model (the check is not simply always failing).
  const fs::path tiny = scratch().path / "tiny.gguf";
  ASSERT_EQ(ordo_run({"synth", "-q", "--preset", "tiny", "-o", tiny.string()}).status, 0);
  const auto ok = ordo_run({"inspect", "--no-tensors", "--no-metadata", tiny.string()});
  EXPECT_EQ(ok.status, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("ds4      ok"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("result      valid"), std::string::npos) << ok.out;
}

}  // namespace
