/// Where a step's time goes (`ordo bench`'s per-op breakdown): the time of every entry an
/// executor runs, summed by entry kind — the spec name without its tier ("qmv.q8_0.ls32",
/// "moe.q2.ls32.gate_up", "attention…"), so the tiers of one kind add up. On the CPU executor an
/// entry has returned when it is done, so its wall time is its time; on the GPU executor two
/// events bracket each launch and are read at collect(), after the work finished. Timing every
/// launch costs the GPU a little (two event records per launch): profiled runs are reported as
/// such, beside unprofiled ones.
#pragma once
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ordo/runtime/device_memory.hpp"

namespace ordo::runtime {

class launch_profile {
 public:
  launch_profile() = default;
  launch_profile(const launch_profile&) = delete;
  launch_profile& operator=(const launch_profile&) = delete;
  ~launch_profile();

  /// The kind an entry's time is filed under: its name without the tier component ("r<N>").
  static std::string kind_of(std::string_view entry_name);

  using clock = std::chrono::steady_clock;
  /// CPU executor: the entry ran from `start` until now.
  void add_cpu(std::string_view entry_name, clock::time_point start);
  /// GPU executor: brackets one launch on `s` (begin before it, end after it).
  void begin_gpu(gpu::stream_t s);
  void end_gpu(std::string_view entry_name, gpu::stream_t s);
  /// Reads the events recorded so far (waiting for their work) into the totals.
  void collect();

  struct line {
    std::string kind;
    double ms = 0;
    uint64_t launches = 0;
  };
  /// The totals, largest first (collect() first on the GPU).
  std::vector<line> lines() const;
  double total_ms() const;
  void clear();

 private:
  struct pending {
    std::string kind;
    device::event from, to;
  };
  device::event take_event();
  std::map<std::string, line> totals_;
  std::vector<pending> pending_;
  std::vector<device::event> free_;  // events already created, reused
  device::event open_ = nullptr;
};

}  // namespace ordo::runtime
