/// Line input for `ordo chat` that a signal can interrupt. SIGINT and SIGTERM set a flag and
/// write a byte to a self-pipe; read_line waits on stdin and that pipe together, so a Ctrl-C at
/// the prompt is seen at once (a flag checked before a blocking read could miss a signal that
/// arrives in between). Unlike interrupt_guard (cli.hpp), the handler stays installed: the chat
/// decides what a second Ctrl-C means (at the prompt: exit).
#pragma once
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <string>

namespace ordo::app {

namespace repl_detail {
inline volatile std::sig_atomic_t pending_signal = 0;
inline int wake_pipe[2] = {-1, -1};
extern "C" inline void on_repl_signal(int sig) {
  pending_signal = sig;
  const int saved = errno;
  const char byte = 1;
  if (wake_pipe[1] >= 0) (void)!::write(wake_pipe[1], &byte, 1);
  errno = saved;
}
}  // namespace repl_detail

/// Installs the handlers for its lifetime (one instance at a time).
class repl_signals {
 public:
  repl_signals() {
    if (::pipe(repl_detail::wake_pipe) == 0)
      for (int fd : repl_detail::wake_pipe) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    struct sigaction sa {};
    sa.sa_handler = repl_detail::on_repl_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;  // no SA_RESTART: a blocked read returns
    ::sigaction(SIGINT, &sa, &old_int_);
    ::sigaction(SIGTERM, &sa, &old_term_);
  }
  ~repl_signals() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
    for (int& fd : repl_detail::wake_pipe) ::close(fd), fd = -1;
  }
  repl_signals(const repl_signals&) = delete;
  repl_signals& operator=(const repl_signals&) = delete;

  /// The last signal received and not yet cleared, or 0.
  static int pending() { return repl_detail::pending_signal; }
  /// Forgets the pending signal (and the pipe's wake-up bytes).
  static void clear() {
    repl_detail::pending_signal = 0;  // first: a signal during the drain stays pending
    drain_wake_pipe();
  }
  static void drain_wake_pipe() {
    char sink[64];
    while (::read(repl_detail::wake_pipe[0], sink, sizeof sink) > 0) {
    }
  }

 private:
  struct sigaction old_int_ {}, old_term_ {};
};

enum class line_status { line, end_of_input, interrupted };

/// Reads stdin line by line (the last line may lack its newline).
class line_reader {
 public:
  line_status read_line(std::string& line) {
    while (true) {
      if (const std::size_t nl = buffer_.find('\n'); nl != std::string::npos) {
        line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return line_status::line;
      }
      if (at_end_) {
        if (buffer_.empty()) return line_status::end_of_input;
        line.swap(buffer_);
        buffer_.clear();
        return line_status::line;
      }
      if (repl_signals::pending()) return line_status::interrupted;
      pollfd fds[2] = {{0, POLLIN, 0}, {repl_detail::wake_pipe[0], POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0) continue;  // EINTR: the loop looks at the flag
      if (fds[1].revents & POLLIN) {
        repl_signals::drain_wake_pipe();  // the flag, checked above, says what happened
        continue;
      }
      if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
        char chunk[4096];
        const ssize_t n = ::read(0, chunk, sizeof chunk);
        if (n > 0) buffer_.append(chunk, std::size_t(n));
        else if (n == 0 || errno != EINTR) at_end_ = true;
      }
    }
  }

 private:
  std::string buffer_;
  bool at_end_ = false;
};

}  // namespace ordo::app
