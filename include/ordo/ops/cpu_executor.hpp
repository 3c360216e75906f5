/// The one CPU executor of every op family: runs a kernel's ORDO_HD lane phase for each logical
/// lane of each work item, one lane after another on the host, then the kernel's host finish
/// (for row reductions: order::combine on host_lanes, the device's combine). Slow and exact: it
/// is the bit reference every GPU spec is compared with (E2). Work items are independent, so
/// they are split over host threads.
///
/// Kernel contract (CPU side): `problem`, `lanes` (logical lanes per work item), `lane_state`,
/// `work_items(problem)`, `can_run(problem)`, `lane_phase(problem, item, lane, lane_state&)` and
/// `finish(problem, item, lane_state (&)[lanes])`.
#pragma once
#include <algorithm>
#include <stdexcept>
#include <thread>
#include <vector>

namespace ordo::ops {

template <class Kernel>
void run_cpu_items(const typename Kernel::problem& p, long begin, long end) {
  for (long item = begin; item < end; ++item) {
    typename Kernel::lane_state state[Kernel::lanes];
    for (int lane = 0; lane < Kernel::lanes; ++lane) Kernel::lane_phase(p, item, lane, state[lane]);
    Kernel::finish(p, item, state);
  }
}

template <class Kernel>
void run_cpu(const typename Kernel::problem& p) {
  if (!Kernel::can_run(p)) throw std::invalid_argument("run_cpu: the kernel cannot run this problem");
  const long items = Kernel::work_items(p);
  const long threads = std::min<long>(long(std::max(1u, std::thread::hardware_concurrency())), std::max(1L, items / 64));
  if (threads <= 1) return run_cpu_items<Kernel>(p, 0, items);
  std::vector<std::thread> pool;
  const long per = (items + threads - 1) / threads;
  for (long t = 0; t < threads; ++t) {
    const long a = t * per, b = std::min(items, a + per);
    if (a < b) pool.emplace_back([&p, a, b] { run_cpu_items<Kernel>(p, a, b); });
  }
  for (auto& t : pool) t.join();
}

}  // namespace ordo::ops
