/// The conventions every `ordo` subcommand follows, in one place:
///   - usage errors (unknown flag, missing or malformed value, a flag that makes no sense in
///     context) print `ordo <cmd>: <message naming the flag>` and a pointer to --help; exit 2;
///   - runtime errors print `ordo <cmd>: <what failed>: <why>`; exit 1;
///   - an interrupted run (SIGINT, SIGTERM) exits 128 + the signal number.
/// `parse` wraps CLI11 so that an unknown argument is named even when a required flag is also
/// missing (CLI11 checks requirements first), and validators word their own range messages.
#pragma once
#include <CLI/CLI.hpp>

#include <csignal>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

namespace ordo::app {

inline constexpr int exit_runtime_error = 1;
inline constexpr int exit_usage_error = 2;

/// A usage fault found after parsing; main reports it like a parse error (exit 2). The message
/// names the flag.
struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Prints a usage error as the convention says; returns exit_usage_error.
int report_usage_error(const std::string& program, const std::string& message);

/// Parses argv (argv[0] is "ordo <cmd>"). Returns nullopt when the command should run, else the
/// exit status: 0 after --help, exit_usage_error after a usage error (already reported).
std::optional<int> parse(CLI::App& app, int argc, char** argv);

/// Validator: an integer >= `min`, with a short message ("must be an integer >= 1").
CLI::Validator integer_at_least(long long min);

/// Throws usage_error naming `flag` unless `path`'s directory exists and is writable, so that a
/// long run never ends in "cannot create". An empty path passes (the flag was not given).
void check_output_path(const std::string& flag, const std::filesystem::path& path);

/// Runs `work`, rethrowing its exception as "<what failed>: <why>".
template <class Work>
decltype(auto) step(const std::string& what, Work&& work) {
  try {
    return work();
  } catch (const usage_error&) {
    throw;
  } catch (const std::exception& e) {
    throw std::runtime_error(what + ": " + e.what());
  }
}

/// The first SIGINT / SIGTERM sets a flag (and restores the default action, so a second one
/// kills); long-running commands poll `interrupt_signal()` and stop cleanly.
class interrupt_guard {
 public:
  interrupt_guard();
  ~interrupt_guard();
  interrupt_guard(const interrupt_guard&) = delete;
  interrupt_guard& operator=(const interrupt_guard&) = delete;
};
/// The signal that asked to stop, or 0.
int interrupt_signal();

}  // namespace ordo::app
