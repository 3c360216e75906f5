// `ordo chat`: a multi-turn conversation on the DS4 chat template (src/generate/chat_session.hpp)
// whose backend state is kept between turns, so each turn feeds only its new tokens. Turns come
// from -p / -f (the first message) and then stdin, one line per message, with /commands between
// them; on a terminal it prompts, otherwise it echoes each message ("> ...") so that the output
// reads as a transcript. Ctrl-C stops the reply being generated (the turn keeps what it produced)
// and returns to the prompt; Ctrl-C twice at the prompt exits (130), as SIGTERM does (143).
// Replies go to stdout; notes, errors and one statistics line per turn to stderr.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>

#include "cli.hpp"
#include "eval/backend.hpp"
#include "eval/backend_selection.hpp"
#include "generate/chat_session.hpp"
#include "generate/generate.hpp"
#include "generate/report.hpp"
#include "generate/token_dump.hpp"
#include "generation_flags.hpp"
#include "repl_input.hpp"
#include "status_line.hpp"
#include "subcommand.hpp"
#include "tokenizer/gguf_vocab.hpp"

namespace {

using namespace ordo;

constexpr const char* repl_help =
    "commands:\n"
    "  /think         think before answering (reasoning effort high)\n"
    "  /think-max     Think Max (needs a context >= 393216, else high)\n"
    "  /nothink       answer directly\n"
    "  /ctx N         context size in tokens for the conversation\n"
    "  /read FILE     send FILE's contents as the next message\n"
    "  /clear         start a new conversation (system prompt kept)\n"
    "  /quit, /exit   leave (so does the end of input)\n"
    "  /help          this list\n"
    "  Ctrl-C         stop the reply being generated; twice at the prompt: exit\n";

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::optional<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// The command word of a line: "/ctx 100" -> "/ctx"; its argument: "100".
std::pair<std::string, std::string> split_command(const std::string& line) {
  const auto sp = line.find_first_of(" \t");
  if (sp == std::string::npos) return {line, {}};
  return {line.substr(0, sp), trim(line.substr(sp))};
}

int run_chat(int argc, char** argv) {
  CLI::App cli{"chat with a DS4 GGUF over several turns, keeping the model state between them "
               "(default: the embedded tiny trained model)"};
  generate::chat_options opt;
  opt.max_tokens = 1024;
  std::filesystem::path model, dump_tokens;
  std::string backend = "auto", think = "none", first_prompt, prompt_file;
  cli.add_option("-m,--model", model, "model GGUF (default: the embedded tiny trained DS4 model, models/tiny-ds4)")
      ->check(CLI::ExistingFile);
  auto* o_prompt = cli.add_option("-p,--prompt", first_prompt, "the first message (then stdin's lines)");
  auto* o_file = cli.add_option("-f,--file", prompt_file, "the first message, from a file (then stdin's lines)")
                     ->check(CLI::ExistingFile);
  o_prompt->excludes(o_file);
  cli.add_option("-s,--system", opt.system, "system prompt (default: none)");
  cli.add_option("-n,--tokens", opt.max_tokens,
                 "tokens per reply; -1: until end of sequence or a full context (default 1024)")
      ->check(app::integer_at_least(generate::unlimited_tokens));
  cli.add_option("--think", think, "reasoning effort to start with: none, high, max (default none; /think... change it)");
  cli.add_option("-c,--ctx", opt.context,
                 "context size in tokens for the whole conversation (default 32768; /ctx N changes it)")
      ->check(app::integer_at_least(1));
  app::add_sampling_flags(cli, opt.sampler);
  app::add_stop_flag(cli, opt.stop);
  app::add_backend_flag(cli, backend);
  std::filesystem::path mtp_model;
  app::spec_flags spec;
  app::add_spec_flags(cli, opt.spec, spec, &mtp_model);
  cli.add_option("--dump-tokens", dump_tokens,
                 "when the chat ends, write the conversation's tokens here (antirez/ds4's --dump-tokens format)");
  cli.footer(std::string("\nInteractive ") + repl_help);
  if (auto rc = app::parse(cli, argc, argv)) return *rc;
  const auto mode = chat::parse_reasoning_effort(think);
  if (!mode) throw app::usage_error("--think '" + think + "' is not a reasoning effort name");
  opt.think = *mode;
  app::check_backend_flag(backend);
  app::finish_spec_flags(opt.spec, spec);
  app::unescape_stops(opt.stop);
  app::check_output_path("--dump-tokens", dump_tokens);

  const auto note = [](std::string_view s) { std::fwrite(s.data(), 1, s.size(), stderr); };
  eval::backend_options bo;
  bo.model = model.empty() ? generate::ensure_default_model(note) : model;
  bo.mtp_model = model.empty() ? generate::default_mtp_model_path() : mtp_model;
  const eval::backend_choice choice = eval::choose_backend(backend);
  const std::string loading = "loading model " + bo.model.string();
  app::status_line status;
  status.start_ticker(loading);
  const tokenizer::bpe_tokenizer tok = app::step(loading, [&] {
    generate::check_ds4_architecture(bo.model);
    return tokenizer::load_tokenizer(bo.model);
  });
  generate::chat_session session(tok, [&] { return eval::make_backend(choice.name, bo); }, opt);
  app::step(loading, [&] { session.open(); });
  status.clear();
  if (!choice.note.empty()) std::fprintf(stderr, "ordo chat: %s\n", choice.note.c_str());

  const app::repl_signals signals;
  const bool interactive = ::isatty(0);
  bool failed = false;
  const auto error = [&](const std::string& what) {
    status.clear();
    std::fprintf(stderr, "ordo chat: %s\n", what.c_str());
    failed = true;
  };

  // Runs one message; returns the signal that must end the chat (SIGTERM), else 0.
  const auto run_turn = [&](const std::string& text) -> int {
    bool wrote = false, ends_in_newline = true;
    generate::turn_events ev;
    ev.text = [&](std::string_view s) {
      status.clear();
      std::fwrite(s.data(), 1, s.size(), stdout);
      std::fflush(stdout);
      wrote = true;
      ends_in_newline = s.back() == '\n';
    };
    ev.prefill_progress = [&](std::size_t done, std::size_t total) { status.count("prompt", done, total); };
    ev.stop_requested = [] { return app::repl_signals::pending() != 0; };
    std::optional<generate::turn_stats> st;
    try {
      st = session.turn(text, ev);
    } catch (const std::exception& e) {
      error(e.what());
      return 0;
    }
    status.clear();
    if (wrote && !ends_in_newline) std::fputc('\n', stdout);
    std::fflush(stdout);
    std::fprintf(stderr, "%s\n", generate::format_turn_stats(*st, session.options()).c_str());
    if (st->spec) std::fprintf(stderr, "%s", runtime::format_spec_stats(*st->spec).c_str());
    const int sig = app::repl_signals::pending();
    if (sig == SIGTERM) return sig;
    if (st->stop == generate::stop_reason::interrupted) app::repl_signals::clear();  // back to the prompt
    return 0;
  };

  const auto say = [](const std::string& s) { std::fprintf(stderr, "[%s]\n", s.c_str()); };
  const auto say_think = [&] {
    const chat::think_mode m = session.effective_think();
    std::string s = "thinking: " + std::string(chat::to_string(m));
    if (session.options().think == chat::think_mode::max && m != chat::think_mode::max)
      s += " (Think Max needs a context >= " + std::to_string(chat::think_max_min_context) + ")";
    say(s);
  };

  int exit_signal = 0;
  if (*o_prompt) exit_signal = run_turn(first_prompt);
  if (*o_file && !exit_signal) {
    const auto text = read_text_file(prompt_file);
    if (!text) throw std::runtime_error("reading " + prompt_file + ": cannot open");
    exit_signal = run_turn(*text);
  }
  if (interactive && !exit_signal) std::fprintf(stderr, "ordo chat: /help lists the commands; Ctrl-C stops a reply\n");

  app::line_reader input;
  int prompt_interrupts = 0;  // consecutive Ctrl-C at the prompt
  while (!exit_signal) {
    if (interactive) std::fputs("> ", stdout), std::fflush(stdout);
    std::string raw;
    const app::line_status got = input.read_line(raw);
    if (got == app::line_status::end_of_input) {
      if (interactive) std::fputc('\n', stdout);
      break;
    }
    if (got == app::line_status::interrupted) {
      const int sig = app::repl_signals::pending();
      if (sig != SIGINT || ++prompt_interrupts >= 2) {
        if (interactive) std::fputc('\n', stdout);
        exit_signal = sig;
        break;
      }
      app::repl_signals::clear();
      std::fprintf(stderr, "%s(Ctrl-C again or /quit to exit)\n", interactive ? "\n" : "");
      continue;
    }
    prompt_interrupts = 0;
    const std::string line = trim(raw);
    if (line.empty()) continue;
    if (!interactive) std::printf("> %s\n", line.c_str()), std::fflush(stdout);
    if (line[0] != '/') {
      exit_signal = run_turn(line);
      continue;
    }
    const auto [cmd, arg] = split_command(line);
    if (cmd == "/quit" || cmd == "/exit") break;
    if (cmd == "/help") {
      std::fputs(repl_help, stdout);
    } else if (cmd == "/think" || cmd == "/nothink" || cmd == "/think-max") {
      session.set_think(cmd == "/think" ? chat::think_mode::high
                        : cmd == "/nothink" ? chat::think_mode::none
                                            : chat::think_mode::max);
      say_think();
    } else if (cmd == "/ctx") {
      std::string value = arg;
      if (const std::string why = app::integer_at_least(1)(value); !why.empty()) {
        error("/ctx: " + why);
      } else {
        const std::uint64_t n = std::stoull(value);
        session.set_context(n);
        say("context: " + std::to_string(n) + " tokens (the conversation holds " +
            std::to_string(session.transcript().size()) + ")");
        if (session.options().think == chat::think_mode::max) say_think();
      }
    } else if (cmd == "/read") {
      if (arg.empty()) {
        error("/read: needs a file");
      } else if (const auto text = read_text_file(arg)) {
        exit_signal = run_turn(*text);
      } else {
        error("/read " + arg + ": cannot open");
      }
    } else if (cmd == "/clear") {
      session.clear();
      say("new conversation");
    } else {
      error("unknown command " + cmd + " (/help lists them)");
    }
  }
  if (!dump_tokens.empty())
    app::step("writing " + dump_tokens.string(), [&] { generate::write_token_dump(dump_tokens, tok, session.transcript()); });
  if (exit_signal) return 128 + exit_signal;
  return failed ? app::exit_runtime_error : 0;
}

}  // namespace

ORDO_SUBCOMMAND(chat, "chat over several turns, keeping the model state (default: the embedded tiny trained model)", run_chat);
