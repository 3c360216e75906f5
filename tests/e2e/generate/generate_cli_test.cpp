// `ordo generate` end to end on the embedded default model (issue 7's items). Every expectation
// is about what a user sees: exit status, the statistics block, stdout/stderr contents, files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <regex>
#include <string>

#include "ordo/model/gguf.hpp"
#include "support/process.hpp"

namespace {

using ordo::e2e::process_options;
using ordo::e2e::process_result;
namespace fs = std::filesystem;

const ordo::e2e::scratch_dir& scratch() {
  static const ordo::e2e::scratch_dir dir("ordo_generate_cli");
  return dir;
}

process_result generate(std::vector<std::string> args, process_options o = {}) {
  args.insert(args.begin(), {ORDO_BIN, "generate"});
  o.env.emplace_back("ORDO_CACHE", (scratch().path / "cache").string());
  return ordo::e2e::run_process(args, o);
}

// The number after `label` in the statistics block, e.g. "prompt       15 tokens".
long stat_number(const std::string& err, const std::string& label) {
  std::smatch m;
  if (!std::regex_search(err, m, std::regex("\n" + label + " +([0-9]+)"))) return -1;
  return std::stol(m[1]);
}

long prompt_tokens(const std::string& prompt) {
  const auto r = generate({"-p", prompt, "-n", "0"});
  EXPECT_EQ(r.status, 0) << r.err;
  return stat_number(r.err, "prompt");
}

TEST(generate_cli, context_zero_is_a_usage_error_naming_the_flag) {
  const auto r = generate({"-p", "hi", "-c", "0"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("ordo generate: --ctx"), std::string::npos) << r.err;
}

TEST(generate_cli, prompt_that_does_not_fit_is_refused_before_any_work) {
  const long n = prompt_tokens("Hello there");
  ASSERT_GT(n, 2);
  const auto r = generate({"-p", "Hello there", "-c", std::to_string(n), "-n", "5"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("ordo generate: prompt does not fit the context"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(std::to_string(n) + " tokens"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(generate_cli, generation_stops_at_the_context_limit_and_says_so) {
  const long n = prompt_tokens("Hello there");
  for (const char* tokens : {"10", "-1"}) {
    const auto r = generate({"-p", "Hello there", "-c", std::to_string(n + 3), "-n", tokens});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(stat_number(r.err, "generated"), 3) << "-n " << tokens << "\n" << r.err;
    EXPECT_NE(r.err.find("stopped      context full (-c " + std::to_string(n + 3) + ")"), std::string::npos) << r.err;
  }
}

TEST(generate_cli, negative_token_counts_get_a_short_message) {
  const auto r = generate({"-p", "hi", "-n", "-2"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--tokens"), std::string::npos) << r.err;
  EXPECT_LT(r.err.size(), 200u) << r.err;  // was a 300-digit range
}

TEST(generate_cli, statistics_report_load_prompt_rate_first_token_and_decode_steps) {
  const auto r = generate({"-p", "Hello", "-n", "6"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(std::regex_search(r.err, std::regex("\nload +[0-9.]+ s"))) << r.err;
  EXPECT_TRUE(std::regex_search(r.err, std::regex("\nprompt +[0-9]+ tokens in [0-9.]+ s \\([0-9.]+ tok/s\\)"))) << r.err;
  EXPECT_TRUE(std::regex_search(r.err, std::regex("\nfirst token +[0-9.]+ s"))) << r.err;
  // Six tokens need five forward steps after the prompt: the rate counts those.
  EXPECT_TRUE(std::regex_search(r.err, std::regex("\ngenerated +6 tokens: 5 decode steps in [0-9.]+ s \\([0-9.]+ tok/s\\)")))
      << r.err;
  EXPECT_NE(r.err.find("stopped      -n 6 reached"), std::string::npos) << r.err;
}

TEST(generate_cli, one_token_reports_no_generation_rate) {
  const auto r = generate({"-p", "Hello", "-n", "1"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.err, m, std::regex("\ngenerated[^\n]*"))) << r.err;
  EXPECT_EQ(m.str().find("tok/s"), std::string::npos) << m.str();
  EXPECT_NE(m.str().find("1 token"), std::string::npos) << m.str();
}

TEST(generate_cli, no_progress_when_output_is_not_a_terminal) {
  const auto r = generate({"-p", "Hello", "-n", "3"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("ETA"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("loading"), std::string::npos) << r.err;
}

TEST(generate_cli, progress_on_a_terminal) {
  // util-linux `script` runs the command on a pseudo-terminal (stdout and stderr both a TTY).
  const std::string cmd = std::string("ORDO_CACHE=") + (scratch().path / "cache").string() + " " + ORDO_BIN +
                          " generate -p Hello -n 3";
  const auto r = ordo::e2e::run_process({"script", "-qfec", cmd, "/dev/null"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("loading the default model"), std::string::npos) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("prompt [0-9]+/[0-9]+ tokens"))) << r.out;
  EXPECT_NE(r.out.find("\r\033[K"), std::string::npos) << r.out;  // redrawn in place, then erased
}

TEST(generate_cli, ctrl_c_stops_generating_and_prints_the_text_and_statistics) {
  process_options o;
  o.signal_when = [](const std::string& out, const std::string&) { return out.size() >= 20; };
  o.send = SIGINT;
  const auto r = generate({"-p", "Hello", "-n", "-1", "-c", "1000000"}, o);
  ASSERT_TRUE(r.sent_signal) << r.err;
  EXPECT_EQ(r.signal, 0) << "killed by the signal instead of stopping";
  EXPECT_EQ(r.status, 130) << r.err;
  EXPECT_GE(r.out.size(), 20u);
  EXPECT_NE(r.err.find("stopped      interrupted"), std::string::npos) << r.err;
  EXPECT_GT(stat_number(r.err, "generated"), 0) << r.err;
}

TEST(generate_cli, a_non_deepseek4_model_is_named_by_its_architecture) {
  const fs::path path = scratch().path / "llama.gguf";
  ordo::gguf::write_file(path, {{"general.architecture", ordo::gguf::value::string("llama")}}, {}, {});
  const auto r = generate({"-m", path.string(), "-p", "hi"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("ordo generate: loading model " + path.string() + ": general.architecture is \"llama\""),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("tokenizer"), std::string::npos) << r.err;
}

TEST(generate_cli, a_corrupt_cached_default_model_is_rewritten) {
  const fs::path cached = scratch().path / "cache" / "tiny-default.gguf";
  ASSERT_EQ(generate({"-p", "hi", "-n", "1"}).status, 0);
  const std::string good = ordo::e2e::read_all(cached);
  ASSERT_GT(good.size(), 1000u);
  const std::vector<std::string> corruptions = {
      "garbage",                                   // not a GGUF
      good.substr(0, good.size() / 2),             // truncated
      good.substr(0, good.size() - 64) + std::string(64, '\x55'),  // last tensor's bytes changed
  };
  for (std::size_t i = 0; i < corruptions.size(); ++i) {
    { std::ofstream(cached, std::ios::binary | std::ios::trunc) << corruptions[i]; }
    const auto r = generate({"-p", "hi", "-n", "1"});
    EXPECT_EQ(r.status, 0) << "corruption " << i << ": " << r.err;
    EXPECT_NE(r.err.find("the cached default model " + cached.string() + " is unusable"), std::string::npos)
        << "corruption " << i << ": " << r.err;
    EXPECT_EQ(ordo::e2e::read_all(cached), good) << "corruption " << i << ": not rewritten to the recipe's bytes";
  }
  const auto again = generate({"-p", "hi", "-n", "1"});
  EXPECT_EQ(again.err.find("unusable"), std::string::npos) << again.err;
}

}  // namespace

namespace {

// The sampler's flags (issue 10): the same seed and flags give the same bytes, another seed other
// bytes; --temp 0 is the greedy run; out-of-range values are usage errors naming the flag.
TEST(generate_cli, sampling_with_a_seed_is_reproducible_and_the_seed_matters) {
  const std::vector<std::string> sampled = {"-p", "Hello there", "-n", "24", "--temp", "1.0", "--top-p", "0.95", "--min-p", "0.01"};
  const auto with_seed = [&](const char* seed) {
    auto args = sampled;
    args.insert(args.end(), {"--seed", seed});
    const auto r = generate(args);
    EXPECT_EQ(r.status, 0) << r.err;
    return r.out;
  };
  const std::string a = with_seed("1"), b = with_seed("1"), c = with_seed("2");
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, b) << "same seed, different bytes";
  EXPECT_NE(a, c) << "seeds 1 and 2 sampled the same 24 tokens";
  const auto greedy = generate({"-p", "Hello there", "-n", "24"});
  const auto temp0 = generate({"-p", "Hello there", "-n", "24", "--temp", "0", "--top-k", "5", "--seed", "9"});
  ASSERT_EQ(greedy.status, 0) << greedy.err;
  EXPECT_EQ(temp0.out, greedy.out) << "--temp 0 must be greedy";
  EXPECT_NE(a, greedy.out) << "sampling at --temp 1 gave the greedy text";
}

TEST(generate_cli, sampler_values_out_of_range_are_usage_errors_naming_the_flag) {
  for (const auto& [flag, value] : {std::pair{"--temp", "-1"}, std::pair{"--top-p", "0"}, std::pair{"--top-p", "1.5"},
                                    std::pair{"--min-p", "2"}, std::pair{"--top-k", "-3"}, std::pair{"--temp", "x"}}) {
    const auto r = generate({"-p", "hi", flag, value});
    EXPECT_EQ(r.status, 2) << flag << " " << value << ": " << r.err;
    EXPECT_NE(r.err.find(std::string("ordo generate: ") + flag), std::string::npos) << r.err;
    EXPECT_LT(r.err.size(), 200u) << r.err;
  }
}

}  // namespace

#include "eval/ordl.hpp"
#include "support/token_dump.hpp"

namespace {

fs::path default_model() {
  const fs::path p = scratch().path / "cache" / "tiny-default.gguf";
  if (!fs::exists(p)) EXPECT_EQ(generate({"-p", "x", "-n", "0"}).status, 0);
  return p;
}

// --stop: the text ends right before the first occurrence of the stop string, and the
// statistics say so; a stop string that never occurs changes nothing. (32 tokens: the default
// model's byte vocabulary gives one byte per token.)
TEST(generate_cli, stop_strings_end_the_text_before_them) {
  const auto full = generate({"-p", "Hello there", "-n", "32"});
  ASSERT_EQ(full.status, 0) << full.err;
  ASSERT_GT(full.out.size(), 20u);
  const std::string stop = full.out.substr(full.out.size() / 2, 3);
  const std::size_t first = full.out.find(stop);
  const auto r = generate({"-p", "Hello there", "-n", "32", "--stop", "never-in-it", "--stop", stop});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, full.out.substr(0, first));
  EXPECT_NE(r.err.find("stopped      stop string \"" + stop + "\""), std::string::npos) << r.err;
  EXPECT_LT(stat_number(r.err, "generated"), 32) << r.err;
  const auto none = generate({"-p", "Hello there", "-n", "32", "--stop", "never-in-it"});
  EXPECT_EQ(none.out, full.out);
  const auto empty = generate({"-p", "hi", "--stop", ""});
  EXPECT_EQ(empty.status, 2) << empty.err;
  EXPECT_NE(empty.err.find("ordo generate: --stop"), std::string::npos) << empty.err;
}

// --dump-tokens and --dump-logits round trip: the dumped ids are the prompt plus the generated
// tokens; the ORDL rows are every forward step's logits, bit-identical to `ordo eval` feeding
// the dumped ids from a fresh state (which reads the dump itself), and each generated token is
// the argmax of the row before it.
TEST(generate_cli, dump_files_round_trip_through_ordo_eval) {
  const fs::path tokens = scratch().path / "t.txt", logits = scratch().path / "l.ordl", again = scratch().path / "e.ordl";
  const auto r = generate({"-p", "Hello", "-n", "8", "--dump-tokens", tokens.string(), "--dump-logits", logits.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto d = ordo::e2e::parse_token_dump(ordo::e2e::read_all(tokens));
  ASSERT_TRUE(d.well_formed) << ordo::e2e::read_all(tokens);
  const long prompt = stat_number(r.err, "prompt");
  ASSERT_EQ(long(d.ids.size()), prompt + 8);
  EXPECT_EQ(d.texts.front(), "<｜begin▁of▁sentence｜>");
  const ordo::eval::ordl g = ordo::eval::read_ordl(logits);
  ASSERT_EQ(g.tokens.size(), d.ids.size() - 1) << "every token but the last is fed";
  EXPECT_TRUE(std::equal(g.tokens.begin(), g.tokens.end(), d.ids.begin()));
  for (std::size_t i = std::size_t(prompt) - 1; i + 1 < d.ids.size(); ++i) {
    const auto row = g.row(i);
    EXPECT_EQ(std::max_element(row.begin(), row.end()) - row.begin(), d.ids[i + 1]) << "position " << i;
  }
  const auto e = ordo::e2e::run_process({ORDO_BIN, "eval", "-m", default_model().string(), "--prompt-ids-file",
                                         tokens.string(), "--dump-logits", again.string()});
  ASSERT_EQ(e.status, 0) << e.err;
  const ordo::eval::ordl v = ordo::eval::read_ordl(again);
  ASSERT_EQ(v.tokens, d.ids);
  ASSERT_EQ(v.n_vocab, g.n_vocab);
  EXPECT_EQ(0, std::memcmp(v.logits.data(), g.logits.data(), g.logits.size() * sizeof(float)))
      << "generate's logits differ from eval's on the same tokens";
}

// --backend: auto says what it chose; a name outside auto|cpu|gpu|ref, or one this build lacks
// (listed by --help's "this build has:"), is a usage error naming the flag and the built ones.
TEST(generate_cli, backend_selection_is_stated_and_missing_backends_are_usage_errors) {
  const auto a = generate({"-p", "hi", "-n", "1"});
  ASSERT_EQ(a.status, 0) << a.err;
  EXPECT_NE(a.err.find("--backend auto: "), std::string::npos) << a.err;
  const auto help = generate({"--help"});
  const std::size_t has = help.out.find("this build has: ");
  ASSERT_NE(has, std::string::npos) << help.out;
  const std::string built = help.out.substr(has);
  int missing = 0;
  for (const char* name : {"cpu", "gpu", "ref"}) {
    const bool in_build = built.find(std::string(name) + " (") != std::string::npos;
    for (const char* cmd : {"generate", "eval"}) {
      std::vector<std::string> args = {ORDO_BIN, cmd, "--backend", name, "-p", "hi"};
      if (std::string(cmd) == "eval") args.insert(args.end(), {"-m", default_model().string()});
      else args.insert(args.end(), {"-n", "1"});
      process_options o;
      o.env.emplace_back("ORDO_CACHE", (scratch().path / "cache").string());
      const auto r = ordo::e2e::run_process(args, o);
      if (in_build) {
        EXPECT_EQ(r.status, 0) << cmd << " --backend " << name << ": " << r.err;
      } else {
        ++missing;
        EXPECT_EQ(r.status, 2) << cmd << " --backend " << name << ": " << r.err;
        EXPECT_NE(r.err.find(std::string("ordo ") + cmd + ": --backend " + name + ": not built into this binary (available: auto"),
                  std::string::npos) << r.err;
      }
    }
  }
  EXPECT_GT(missing + int(built.find("gpu (") != std::string::npos), 0);
  const auto bad = generate({"-p", "hi", "--backend", "metal"});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("ordo generate: --backend metal: not a backend (auto, cpu, gpu or ref)"), std::string::npos) << bad.err;
}

// eval --chunk: a usage error below 1; a backend without chunked prefill says it ignores it and
// the logits are those of the run without --chunk.
TEST(generate_cli, eval_chunk_is_passed_or_stated_as_ignored) {
  const fs::path plain = scratch().path / "c0.ordl", chunked = scratch().path / "c4.ordl";
  const std::string model = default_model().string();
  const auto zero = ordo::e2e::run_process({ORDO_BIN, "eval", "-m", model, "--prompt-ids", "1,2,3", "--chunk", "0"});
  EXPECT_EQ(zero.status, 2);
  EXPECT_NE(zero.err.find("ordo eval: --chunk"), std::string::npos) << zero.err;
  const auto a = ordo::e2e::run_process({ORDO_BIN, "eval", "-m", model, "--prompt-ids", "256,72,105,33,10", "--dump-logits", plain.string()});
  const auto b = ordo::e2e::run_process(
      {ORDO_BIN, "eval", "-m", model, "--prompt-ids", "256,72,105,33,10", "--chunk", "4", "--dump-logits", chunked.string()});
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  if (b.out.find("backend ref") != std::string::npos)
    EXPECT_NE(b.err.find("ordo eval: --chunk 4 ignored: the ref backend has no chunked prefill"), std::string::npos) << b.err;
  EXPECT_EQ(ordo::e2e::read_all(plain), ordo::e2e::read_all(chunked));
}

}  // namespace

namespace {

// --spec (issue 13): the default model has an MTP block, so auto speculates; its text, the
// sampled text at T = 0.8 and a fixed width are byte-identical to --spec off; the statistics say
// how rounds went; bad values are usage errors naming the flag.
TEST(generate_cli, speculation_on_writes_the_bytes_of_speculation_off) {
  for (const std::vector<std::string>& sampling : {std::vector<std::string>{}, std::vector<std::string>{"--temp", "0.8", "--seed", "7"}}) {
    std::vector<std::string> base{"-p", "What does ls do?", "-n", "120"};
    base.insert(base.end(), sampling.begin(), sampling.end());
    auto with = [&](std::vector<std::string> extra) {
      std::vector<std::string> a = base;
      a.insert(a.end(), extra.begin(), extra.end());
      return generate(a);
    };
    const auto off = with({"--spec", "off"}), on = with({}), w2 = with({"--spec", "mtp", "--spec-width", "2", "--spec-margin", "1.5"});
    ASSERT_EQ(off.status, 0) << off.err;
    ASSERT_EQ(on.status, 0) << on.err;
    ASSERT_EQ(w2.status, 0) << w2.err;
    EXPECT_FALSE(off.out.empty());
    EXPECT_EQ(on.out, off.out);
    EXPECT_EQ(w2.out, off.out);
    EXPECT_EQ(off.err.find("speculation:"), std::string::npos) << off.err;
    EXPECT_NE(on.err.find("speculation: "), std::string::npos) << on.err;
    EXPECT_NE(on.err.find("acceptance per depth: d1 "), std::string::npos) << on.err;
    EXPECT_NE(on.err.find("round cost: "), std::string::npos) << on.err;
    EXPECT_NE(w2.err.find("rounds per width:"), std::string::npos) << w2.err;
  }
  const auto bad = generate({"-p", "hi", "--spec-width", "7"});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--spec-width"), std::string::npos) << bad.err;
  const auto bad2 = generate({"-p", "hi", "--spec", "eagle"});
  EXPECT_EQ(bad2.status, 2);
  EXPECT_NE(bad2.err.find("--spec"), std::string::npos) << bad2.err;
}

}  // namespace
