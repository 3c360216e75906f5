// `ordo chat` end to end on the embedded default model. The state kept between turns is checked
// against an independent run: `ordo eval` feeding the whole transcript (from --dump-tokens) from
// scratch must greedy-continue with exactly the tokens the chat generated while feeding only
// each turn's new tokens.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "support/process.hpp"
#include "support/token_dump.hpp"

namespace {

namespace fs = std::filesystem;
using ordo::e2e::process_options;
using ordo::e2e::process_result;

const ordo::e2e::scratch_dir& scratch() {
  static const ordo::e2e::scratch_dir dir("ordo_chat_cli");
  return dir;
}

process_result ordo_run(std::vector<std::string> args, process_options o = {}) {
  args.insert(args.begin(), ORDO_BIN);
  o.env.emplace_back("ORDO_CACHE", (scratch().path / "cache").string());
  return ordo::e2e::run_process(args, o);
}

process_result chat(std::vector<std::string> args, const std::string& input, process_options o = {}) {
  args.insert(args.begin(), "chat");
  o.input = input;
  return ordo_run(args, o);
}

fs::path default_model() {
  const fs::path p = scratch().path / "cache" / "tiny-default.gguf";
  if (!fs::exists(p)) EXPECT_EQ(ordo_run({"generate", "-p", "x", "-n", "0"}).status, 0);
  return p;
}

std::vector<std::string> stats_lines(const std::string& err) {
  std::vector<std::string> lines;
  const std::regex line("\\[fed [^\n]*\\]");
  for (auto it = std::sregex_iterator(err.begin(), err.end(), line); it != std::sregex_iterator(); ++it)
    lines.push_back(it->str());
  return lines;
}

long number_after(const std::string& s, const std::string& before) {
  std::smatch m;
  if (!std::regex_search(s, m, std::regex(before + "([0-9]+)"))) return -1;
  return std::stol(m[1]);
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

// The greedy tokens `ordo eval` generates after feeding `prompt` from a fresh state.
std::vector<int32_t> eval_greedy(const std::vector<int32_t>& ids, std::size_t prompt_end, int n) {
  const auto r = ordo_run({"eval", "-m", default_model().string(), "--prompt-ids",
                           ordo::e2e::join_ids(ids, 0, prompt_end), "--gen", std::to_string(n)});
  EXPECT_EQ(r.status, 0) << r.err;
  std::smatch m;
  std::vector<int32_t> out;
  if (!std::regex_search(r.out, m, std::regex("greedy([ 0-9]*)"))) return out;
  std::istringstream in(m[1].str());
  for (int32_t t; in >> t;) out.push_back(t);
  return out;
}

TEST(chat_cli, turns_feed_only_their_new_tokens_and_match_a_fresh_full_feed) {
  const fs::path dump = scratch().path / "turns.txt";
  const auto r = chat({"-n", "6", "--dump-tokens", dump.string()}, "Hello\nSecond turn\n/quit\nnot sent\n");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("> Hello\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("> Second turn\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("not sent"), std::string::npos) << "input after /quit was read: " << r.out;
  const auto stats = stats_lines(r.err);
  ASSERT_EQ(stats.size(), 2u) << r.err;

  const auto d = ordo::e2e::parse_token_dump(ordo::e2e::read_all(dump));
  ASSERT_TRUE(d.well_formed) << ordo::e2e::read_all(dump);
  // Turn 1: 9 prompt tokens (BOS <User> H e l l o <Assistant> </think>), 6 generated, EOS.
  const long fed1 = number_after(stats[0], "fed "), fed2 = number_after(stats[1], "fed ");
  const long kept2 = number_after(stats[1], "\\(");
  ASSERT_GT(fed1, 0);
  EXPECT_EQ(kept2, fed1 + 5) << "turn 2 should keep the prompt and the 5 fed replies: " << stats[1];
  EXPECT_EQ(std::size_t(kept2 + fed2 + 6 + 1), d.ids.size()) << stats[1];
  EXPECT_LT(fed2, long(d.ids.size()) / 2) << "turn 2 fed most of the conversation again: " << stats[1];
  EXPECT_EQ(d.texts.back(), "<｜end▁of▁sentence｜>");

  // Each turn's reply == what a fresh full feed of the transcript before it greedy-continues.
  const std::size_t turn1_prompt = std::size_t(fed1), turn2_prompt = d.ids.size() - 7;
  const auto g1 = eval_greedy(d.ids, turn1_prompt, 6), g2 = eval_greedy(d.ids, turn2_prompt, 6);
  EXPECT_EQ(g1, std::vector<int32_t>(d.ids.begin() + long(turn1_prompt), d.ids.begin() + long(turn1_prompt) + 6));
  EXPECT_EQ(g2, std::vector<int32_t>(d.ids.begin() + long(turn2_prompt), d.ids.end() - 1));
}

TEST(chat_cli, the_first_turn_is_generate_s_single_turn_prompt_from_p_f_or_stdin) {
  const auto gen = ordo_run({"generate", "-p", "Hello", "-n", "6"});
  ASSERT_EQ(gen.status, 0) << gen.err;
  const auto p = chat({"-p", "Hello", "-n", "6"}, "");
  ASSERT_EQ(p.status, 0) << p.err;
  EXPECT_EQ(p.out, gen.out + "\n");
  const fs::path file = scratch().path / "hello.txt";
  std::ofstream(file) << "Hello";
  const auto f = chat({"-f", file.string(), "-n", "6"}, "");
  ASSERT_EQ(f.status, 0) << f.err;
  EXPECT_EQ(f.out, gen.out + "\n");
  const auto in = chat({"-n", "6"}, "Hello\n");
  ASSERT_EQ(in.status, 0) << in.err;
  EXPECT_EQ(in.out, "> Hello\n" + gen.out + "\n");
  const auto both = chat({"-p", "a", "-f", file.string()}, "");
  EXPECT_EQ(both.status, 2) << both.err;
}

TEST(chat_cli, think_commands_change_the_template) {
  const fs::path dump = scratch().path / "think.txt";
  const auto r = chat({"-n", "2", "--dump-tokens", dump.string()}, "/think\nA\n/nothink\nB\n/think-max\n");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("[thinking: high]"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[thinking: none]"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[thinking: high (Think Max needs a context >= 393216)]"), std::string::npos) << r.err;
  const auto d = ordo::e2e::parse_token_dump(ordo::e2e::read_all(dump));
  ASSERT_TRUE(d.well_formed);
  // <｜Assistant｜> is followed by <think> in turn A and by </think> in turn B.
  std::vector<std::string> after_assistant;
  for (std::size_t i = 0; i + 1 < d.texts.size(); ++i)
    if (d.texts[i] == "<｜Assistant｜>") after_assistant.push_back(d.texts[i + 1]);
  EXPECT_EQ(after_assistant, (std::vector<std::string>{"<think>", "</think>"}));

  // (That switching Think Max on or off makes the next turn start a fresh state is
  // tests/unit/generate/chat_session_test's: the prefix costs ~450 reference steps here.)
}

TEST(chat_cli, ctx_read_clear_help_and_errors) {
  const fs::path file = scratch().path / "message.txt";
  std::ofstream(file) << "From a file";
  const fs::path dump = scratch().path / "cmds.txt";
  const auto r = chat({"-n", "3", "--dump-tokens", dump.string()},
                      "/help\n/read " + file.string() + "\n/read /no/such/file\n/ctx x\n/ctx 20\nToo long for twenty\n"
                      "/ctx 1000\n/clear\nAfter clear\n/bogus\n");
  EXPECT_EQ(r.status, 1) << "errors in the script must make the exit status 1\n" << r.err;
  EXPECT_NE(r.out.find("/think-max"), std::string::npos) << "/help lists the commands: " << r.out;
  EXPECT_NE(r.err.find("ordo chat: /read /no/such/file: cannot open"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ordo chat: /ctx: 'x' is not an integer >= 1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[context: 20 tokens"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the context of 20 leaves no room for a reply"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ordo chat: unknown command /bogus"), std::string::npos) << r.err;
  const auto s = stats_lines(r.err);
  ASSERT_EQ(s.size(), 2u) << r.err;  // the /read turn and the turn after /clear
  EXPECT_NE(s[1].find("(fresh state)"), std::string::npos) << s[1];
  // After /clear the conversation is only the last turn: BOS <User> "After clear" ...
  const auto d = ordo::e2e::parse_token_dump(ordo::e2e::read_all(dump));
  ASSERT_TRUE(d.well_formed);
  std::string text;
  for (const auto& t : d.texts) text += t;
  EXPECT_EQ(text.find("From"), std::string::npos) << text;
  EXPECT_NE(text.find("After"), std::string::npos) << text;
}

TEST(chat_cli, ctrl_c_stops_the_reply_and_the_chat_goes_on) {
  process_options o;
  o.max_signals = 2;
  // First Ctrl-C once the first reply has started; the second once the second reply has.
  o.signal_when = [sent = 0](const std::string& out, const std::string&) mutable {
    const std::size_t second = out.find("> After\n");
    const bool now = sent == 0 ? out.size() >= 40 && second == std::string::npos
                               : second != std::string::npos && out.size() >= second + 40;
    if (now) ++sent;
    return now;
  };
  const auto r = chat({"-n", "100000", "-c", "1000000"}, "Hello\nAfter\n/quit\n", o);
  ASSERT_EQ(r.signals_sent, 2) << r.out << r.err;
  EXPECT_EQ(r.signal, 0) << "killed instead of stopping the reply";
  EXPECT_EQ(r.status, 0) << r.err;
  const auto s = stats_lines(r.err);
  ASSERT_EQ(s.size(), 2u) << r.err;
  EXPECT_NE(s[0].find("stopped: interrupted"), std::string::npos) << s[0];
  EXPECT_NE(s[1].find("stopped: interrupted"), std::string::npos) << s[1];
  EXPECT_NE(s[1].find("kept)"), std::string::npos) << "an interrupted reply keeps its tokens and the state: " << s[1];
}

TEST(chat_cli, ctrl_c_twice_at_the_prompt_exits_130_and_sigterm_143) {
  process_options o;
  o.keep_input_open = true;  // the chat waits at its prompt for more input
  o.max_signals = 2;
  o.signal_when = [sent = 0](const std::string&, const std::string& err) mutable {
    const bool now = sent == 0 ? err.find("stopped: -n 3 reached") != std::string::npos
                               : err.find("Ctrl-C again") != std::string::npos;
    if (now) ++sent;
    return now;
  };
  const auto r = chat({"-n", "3"}, "Hello\n", o);
  ASSERT_EQ(r.signals_sent, 2) << r.err;
  EXPECT_EQ(r.signal, 0) << "killed by the signal";
  EXPECT_EQ(r.status, 130) << r.err;
  EXPECT_EQ(count(r.err, "Ctrl-C again"), 1u) << r.err;

  process_options t;
  t.keep_input_open = true;
  t.send = SIGTERM;
  t.signal_when = [](const std::string&, const std::string& err) { return err.find("stopped: -n 3") != std::string::npos; };
  const auto term = chat({"-n", "3"}, "Hello\n", t);
  ASSERT_TRUE(term.sent_signal) << term.err;
  EXPECT_EQ(term.signal, 0);
  EXPECT_EQ(term.status, 143) << term.err;
}

TEST(chat_cli, usage_errors_name_the_flag) {
  for (const auto& [args, flag] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--backend", "sideways"}, "--backend"},
           {{"--think", "sideways"}, "--think"},
           {{"-n", "-2"}, "--tokens"},
           {{"--stop", ""}, "--stop"},
           {{"--top-p", "0"}, "--top-p"},
           {{"--dump-tokens", "/no/such/dir/x"}, "--dump-tokens"}}) {
    const auto r = chat(args, "");
    EXPECT_EQ(r.status, 2) << flag << ": " << r.err;
    EXPECT_NE(r.err.find("ordo chat: " + flag), std::string::npos) << r.err;
  }
}

}  // namespace
