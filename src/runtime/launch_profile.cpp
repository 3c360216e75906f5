// Per-entry time of a step (include/ordo/runtime/launch_profile.hpp).
#include "ordo/runtime/launch_profile.hpp"

#include <algorithm>
#include <cctype>

namespace ordo::runtime {

launch_profile::~launch_profile() {
  for (const pending& p : pending_) {
    device::destroy_event(p.from);
    device::destroy_event(p.to);
  }
  for (device::event e : free_) device::destroy_event(e);
  device::destroy_event(open_);
}

std::string launch_profile::kind_of(std::string_view name) {
  std::string out;
  std::size_t at = 0;
  while (at <= name.size()) {
    const std::size_t dot = std::min(name.find('.', at), name.size());
    const std::string_view part = name.substr(at, dot - at);
    const bool tier = part.size() >= 2 && part[0] == 'r' &&
                      std::all_of(part.begin() + 1, part.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    if (!tier) out += (out.empty() ? "" : ".") + std::string(part);
    at = dot + 1;
  }
  return out;
}

void launch_profile::add_cpu(std::string_view entry_name, clock::time_point start) {
  line& l = totals_[kind_of(entry_name)];
  l.ms += std::chrono::duration<double, std::milli>(clock::now() - start).count();
  ++l.launches;
}

device::event launch_profile::take_event() {
  if (free_.empty()) return device::create_event();
  device::event e = free_.back();
  free_.pop_back();
  return e;
}

void launch_profile::begin_gpu(gpu::stream_t s) {
  if (!open_) open_ = take_event();
  device::record_event(open_, s);
}

void launch_profile::end_gpu(std::string_view entry_name, gpu::stream_t s) {
  device::event to = take_event();
  device::record_event(to, s);
  pending_.push_back({kind_of(entry_name), open_, to});
  open_ = nullptr;
}

void launch_profile::collect() {
  for (const pending& p : pending_) {
    line& l = totals_[p.kind];
    l.ms += device::event_ms(p.from, p.to);
    ++l.launches;
    free_.push_back(p.from);
    free_.push_back(p.to);
  }
  pending_.clear();
}

std::vector<launch_profile::line> launch_profile::lines() const {
  std::vector<line> out;
  for (const auto& [kind, l] : totals_) out.push_back({kind, l.ms, l.launches});
  std::sort(out.begin(), out.end(), [](const line& a, const line& b) { return a.ms > b.ms; });
  return out;
}

double launch_profile::total_ms() const {
  double t = 0;
  for (const auto& [kind, l] : totals_) t += l.ms;
  return t;
}

void launch_profile::clear() { totals_.clear(); }

}  // namespace ordo::runtime
