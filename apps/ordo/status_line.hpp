/// A one-line status display on stderr for long silent work (model load, prefill), redrawn in
/// place. It shows only when both stdout and stderr are terminals: when output is captured or
/// piped nothing extra is written. Loading shows the elapsed time from a ticker thread (the
/// loader has no progress hook); counted work shows done/total, rate and ETA.
#pragma once
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

namespace ordo::app {

class status_line {
 public:
  status_line() : enabled_(::isatty(1) && ::isatty(2)) {}
  ~status_line() { clear(); }

  bool enabled() const { return enabled_; }

  /// Shows "<what>  <elapsed> s" until the next call, redrawn every 250 ms.
  void start_ticker(std::string what) {
    if (!enabled_) return;
    stop_ticker();
    const auto t0 = clock::now();
    ticker_ = std::jthread([this, what = std::move(what), t0](std::stop_token stop) {
      std::mutex m;
      std::condition_variable_any cv;
      std::unique_lock lock(m);
      while (!stop.stop_requested()) {
        draw(what + "  " + std::to_string(int(seconds(t0))) + " s");
        cv.wait_for(lock, stop, std::chrono::milliseconds(250), [&] { return stop.stop_requested(); });
      }
    });
  }

  /// Shows "<what> done/total, rate, ETA", at most ten times a second (and at the end).
  void count(const std::string& what, std::size_t done, std::size_t total) {
    if (!enabled_) return;
    stop_ticker();
    const auto now = clock::now();
    if (done == 1 || done_start_ == clock::time_point{}) done_start_ = now;
    if (done != total && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    const double secs = std::chrono::duration<double>(now - done_start_).count();
    const double rate = secs > 0 && done > 1 ? double(done - 1) / secs : 0;
    const int eta = rate > 0 ? int(double(total - done) / rate) : 0;
    char text[160];
    std::snprintf(text, sizeof text, "%s %zu/%zu tokens  %.1f tok/s  ETA %d:%02d", what.c_str(), done, total, rate,
                  eta / 60, eta % 60);
    draw(text);
  }

  /// Erases the line (before text is written to the terminal).
  void clear() {
    stop_ticker();
    std::lock_guard lock(draw_mutex_);
    if (shown_) std::fputs("\r\033[K", stderr), std::fflush(stderr);
    shown_ = false;
  }

 private:
  using clock = std::chrono::steady_clock;
  static double seconds(clock::time_point t0) { return std::chrono::duration<double>(clock::now() - t0).count(); }
  void draw(const std::string& text) {
    std::lock_guard lock(draw_mutex_);
    std::fprintf(stderr, "\r\033[K%s", text.c_str());
    std::fflush(stderr);
    shown_ = true;
  }
  void stop_ticker() {
    if (ticker_.joinable()) {
      ticker_.request_stop();
      ticker_.join();
    }
  }

  bool enabled_;
  bool shown_ = false;
  std::mutex draw_mutex_;
  std::jthread ticker_;
  clock::time_point done_start_{}, last_{};
};

}  // namespace ordo::app
