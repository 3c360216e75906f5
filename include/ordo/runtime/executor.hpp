/// Executors (DESIGN §6): who runs a resolved registry entry on a problem. `cpu_executor` runs
/// the entry's CPU executor (the same ORDO_HD body lane by lane on the host: exact, always
/// available); `gpu_executor` launches its GPU entry on a stream. Both are written against the
/// shape every registry entry has — a spec name, `run_cpu(problem)` and `launch_gpu(problem,
/// stream)` (null in CPU-only builds) — so an op family plugs in by having entries of that shape;
/// the step function is a template over the executor and calls `ex.run(entry, problem)`.
///
/// `ex.sync()` is where host code of the step reads what an entry wrote or rewrites what a
/// queued entry reads (the KV table, the gather lists, the emission's RoPE row): a no-op on the
/// CPU executor, whose entries have returned; a stream synchronize on the GPU executor, whose
/// launches are asynchronous. A host loop of the step without a sync before it reads stale bytes
/// on the GPU only; `deferred_executor` makes that failure deterministic on any machine (the
/// CPU entries queued until the next sync), so the sync points are tested without a GPU
/// (tests/unit/runtime/session_test.cpp). `ex.fill(kv_table_fill)` copies the step's KV table
/// rows the same way: on the host, queued, or as one launch. `ex.publish(dst, src, bytes)` makes
/// host-written step inputs visible where the entries read them (step_inputs.hpp's device
/// copies): nothing to do where they are the same memory (host arenas), else a copy — at once
/// on the CPU executor, queued with the entries on the deferred one, on the stream on the GPU.
#pragma once
#include <cstddef>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "ordo/gpu/device_api.hpp"
#include "ordo/runtime/device_memory.hpp"
#include "ordo/runtime/kv_table_fill.hpp"
#include "ordo/runtime/launch_profile.hpp"

namespace ordo::runtime {

/// The KV table fill's name in launch profiles (it is a copy, not a registry entry).
inline constexpr std::string_view kv_table_fill_name = "kv_table.fill";

/// The spec name of an entry (qmv entries: `name`; activation quantizers: their activation).
template <class Entry>
std::string entry_name(const Entry& e) {
  if constexpr (requires { e.name.view(); }) return std::string(e.name.view());
  else if constexpr (requires { std::string(e.name); }) return std::string(e.name);
  else return "quantize." + std::string(e.activation);
}

class cpu_executor {
 public:
  static constexpr std::string_view name = "cpu";
  template <class Entry, class Problem>
  void run(const Entry& e, const Problem& p) const {
    if (!profile) return e.run_cpu(p);
    const auto start = launch_profile::clock::now();
    e.run_cpu(p);
    profile->add_cpu(entry_name(e), start);
  }
  /// The step's KV table (kv_table_fill.hpp), on the host.
  void fill(const kv_table_fill& f) const {
    if (!profile) return fill_table_on_host(f);
    const auto start = launch_profile::clock::now();
    fill_table_on_host(f);
    profile->add_cpu(kv_table_fill_name, start);
  }
  void sync() const {}
  /// The copy now (the entries before it have returned); none where the copy is the input itself.
  void publish(void* dst, const void* src, std::size_t bytes) const {
    if (dst != src && bytes) std::memcpy(dst, src, bytes);
  }
  launch_profile* profile = nullptr;  // set: every entry's time is added to it (ordo bench)
};

/// The GPU executor's asynchrony on the host, deterministically (tests): `run` queues the entry's
/// CPU executor with a copy of the problem, `sync` runs the queue in order. Host code of a step
/// that reads an entry's output, or rewrites what a queued entry reads, without a sync first
/// sees the wrong bytes every time instead of sometimes; with the syncs it gives the CPU's bits.
class deferred_executor {
 public:
  static constexpr std::string_view name = "deferred";
  template <class Entry, class Problem>
  void run(const Entry& e, const Problem& p) const {
    queue_.push_back([&e, p] { e.run_cpu(p); });  // entries live in the registry or the plan
  }
  void fill(const kv_table_fill& f) const {
    queue_.push_back([f] { fill_table_on_host(f); });
  }
  void sync() const {
    for (const auto& f : queue_) f();
    queue_.clear();
  }
  /// The copy queued with the entries (the host rewrites `src` only after a sync).
  void publish(void* dst, const void* src, std::size_t bytes) const {
    if (dst != src && bytes) queue_.push_back([dst, src, bytes] { std::memcpy(dst, src, bytes); });
  }

 private:
  mutable std::vector<std::function<void()>> queue_;
};

class gpu_executor {
 public:
  static constexpr std::string_view name = "gpu";
  explicit gpu_executor(gpu::stream_t stream) : stream_(stream) {}
  template <class Entry, class Problem>
  void run(const Entry& e, const Problem& p) const {
    if (!e.launch_gpu)
      throw std::runtime_error(entry_name(e) + ": no GPU launch in this build (a CPU-only preset)");
    try {
      if (profile) profile->begin_gpu(stream_);
      e.launch_gpu(p, stream_);
      if (profile) profile->end_gpu(entry_name(e), stream_);
    } catch (const std::exception& x) {  // a refused problem or a failed launch, named by its spec
      throw gpu::error(entry_name(e) + ": " + x.what());
    }
  }
  /// The step's KV table (kv_table_fill.hpp), one launch on the stream.
  void fill(const kv_table_fill& f) const {
    if (profile) profile->begin_gpu(stream_);
    device::fill_kv_table(f, stream_);
    if (profile) profile->end_gpu(kv_table_fill_name, stream_);
  }
  void sync() const { device::synchronize(stream_); }
  /// The copy queued on the stream (the host rewrites `src` only after a sync).
  void publish(void* dst, const void* src, std::size_t bytes) const {
    if (dst != src && bytes) device::upload_async(dst, src, bytes, stream_);
  }
  gpu::stream_t stream() const { return stream_; }
  launch_profile* profile = nullptr;  // set: events bracket every launch (ordo bench)

 private:
  gpu::stream_t stream_;
};

}  // namespace ordo::runtime
