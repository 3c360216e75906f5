/// Runs a program the way a user would (own process, stdout and stderr captured, optional
/// environment), optionally sending it a signal once a condition on its output or files holds.
/// For the CLI tests of tests/e2e: they check exit statuses, messages and files, not internals.
#pragma once
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace ordo::e2e {

struct process_result {
  int status = -1;     // exit status, or -1 when killed by a signal
  int signal = 0;      // the signal that killed it, or 0
  bool sent_signal = false;
  int signals_sent = 0;
  std::string out, err;
  double seconds = 0;
};

struct process_options {
  std::vector<std::pair<std::string, std::string>> env;  // set (added to the inherited environment)
  /// Polled every 20 ms with the output so far; when it returns true, `send` is sent once.
  std::function<bool(const std::string& out, const std::string& err)> signal_when;
  int send = SIGINT;
  int max_signals = 1;  // signal_when is polled again after each signal, up to this many
  /// Standard input: "" with keep_input_open false is /dev/null's (end of input at once); else a
  /// pipe holding `input` (at most a pipe buffer, 64 KiB), closed after it or, with
  /// keep_input_open, left open until the program exits (it then waits at its prompt).
  std::string input;
  bool keep_input_open = false;
  double timeout_seconds = 120;  // then SIGKILL (and the test sees signal == SIGKILL)
};

inline std::string read_all(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

inline process_result run_process(const std::vector<std::string>& argv, const process_options& o = {}) {
  static int serial = 0;
  const auto base = std::filesystem::temp_directory_path() /
                    ("ordo_e2e_" + std::to_string(::getpid()) + "_" + std::to_string(serial++));
  const auto out_path = base.string() + ".out", err_path = base.string() + ".err";
  const auto t0 = std::chrono::steady_clock::now();
  const bool piped = !o.input.empty() || o.keep_input_open;
  int in_pipe[2] = {-1, -1};
  if (piped && ::pipe(in_pipe) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int in = piped ? in_pipe[0] : ::open("/dev/null", O_RDONLY);
    if (piped) ::close(in_pipe[1]);
    ::dup2(in, 0), ::dup2(out, 1), ::dup2(err, 2);
    for (const auto& [k, v] : o.env) ::setenv(k.c_str(), v.c_str(), 1);
    ::signal(SIGINT, SIG_DFL);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  if (piped) {
    ::close(in_pipe[0]);
    for (std::size_t done = 0; done < o.input.size();) {
      const ssize_t n = ::write(in_pipe[1], o.input.data() + done, o.input.size() - done);
      if (n <= 0) break;
      done += std::size_t(n);
    }
    if (!o.keep_input_open) ::close(in_pipe[1]), in_pipe[1] = -1;
  }
  process_result r;
  int wstatus = 0;
  while (true) {
    const pid_t done = ::waitpid(pid, &wstatus, WNOHANG);
    if (done == pid) break;
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (secs > o.timeout_seconds) ::kill(pid, SIGKILL);
    if (o.signal_when && r.signals_sent < o.max_signals && o.signal_when(read_all(out_path), read_all(err_path))) {
      ::kill(pid, o.send);
      r.sent_signal = true;
      ++r.signals_sent;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (in_pipe[1] >= 0) ::close(in_pipe[1]);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (WIFEXITED(wstatus)) r.status = WEXITSTATUS(wstatus);
  if (WIFSIGNALED(wstatus)) r.signal = WTERMSIG(wstatus);
  r.out = read_all(out_path);
  r.err = read_all(err_path);
  std::filesystem::remove(out_path);
  std::filesystem::remove(err_path);
  return r;
}

/// A fresh folder under the temp directory, removed by the destructor.
struct scratch_dir {
  std::filesystem::path path;
  explicit scratch_dir(const std::string& name)
      : path(std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~scratch_dir() { std::filesystem::remove_all(path); }
};

}  // namespace ordo::e2e
