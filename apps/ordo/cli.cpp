// The shared CLI conventions of cli.hpp.
#include "cli.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdio>

namespace ordo::app {

namespace {

std::string unexpected_arguments(CLI::App& app) {
  std::string list;
  for (const std::string& a : app.remaining()) list += (list.empty() ? "" : " ") + a;
  return list;
}

volatile std::sig_atomic_t g_signal = 0;

extern "C" void on_interrupt(int sig) {
  g_signal = sig;
  std::signal(sig, SIG_DFL);  // a second Ctrl-C kills as usual
}

}  // namespace

int report_usage_error(const std::string& program, const std::string& message) {
  std::fprintf(stderr, "%s: %s\n(%s --help lists the options)\n", program.c_str(), message.c_str(), program.c_str());
  return exit_usage_error;
}

std::optional<int> parse(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::RequiredError& e) {
    // CLI11 checks required flags before unexpected ones: name the unknown argument first.
    const std::string extra = unexpected_arguments(app);
    if (!extra.empty()) return report_usage_error(argv[0], "unknown argument: " + extra);
    return report_usage_error(argv[0], e.what());
  } catch (const CLI::ExtrasError&) {
    return report_usage_error(argv[0], "unknown argument: " + unexpected_arguments(app));
  } catch (const CLI::ParseError& e) {
    return report_usage_error(argv[0], e.what());
  }
  return std::nullopt;
}

CLI::Validator integer_at_least(long long min) {
  const std::string rule = "an integer >= " + std::to_string(min);
  return CLI::Validator(
      [min, rule](std::string& text) -> std::string {
        std::size_t used = 0;
        long long v = 0;
        try {
          v = std::stoll(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == 0 || used != text.size() || v < min) return "'" + text + "' is not " + rule;
        return {};
      },
      rule);
}

void check_output_path(const std::string& flag, const std::filesystem::path& path) {
  if (path.empty()) return;
  const std::filesystem::path dir = path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw usage_error(flag + " " + path.string() + ": directory " + dir.string() + " does not exist");
  if (::access(dir.c_str(), W_OK) != 0)
    throw usage_error(flag + " " + path.string() + ": directory " + dir.string() + " is not writable");
  if (std::filesystem::is_directory(path, ec)) throw usage_error(flag + " " + path.string() + ": is a directory");
}

interrupt_guard::interrupt_guard() {
  g_signal = 0;
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
}

interrupt_guard::~interrupt_guard() {
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

int interrupt_signal() { return g_signal; }

}  // namespace ordo::app
