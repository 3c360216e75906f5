// GPU runners of compressor. Every buffer a problem points at travels whole —
// all `tier` rows of it, the whole ring, padding and poisoned rows included — so what the kernel
// must not touch is checked on the device's copy too. Pointers a stage does not use (problem.hpp
// of the op) stay null on the device: a kernel that read one would fault, not pass. Inputs come
// back too, so the harness's "inputs never written" check covers the device's copies.
#include "hc_kv_compressor_gpu_runners.hpp"

#include "device_mirror.hpp"
#include "ordo/ops/compressor/kernel.hpp"

namespace ordo::test::gpu_runners {

int gpu_count() { return gpu::device_count(); }

std::string gpu_name() {
  const auto info = gpu::query_device(0);
  return info.name + " (" + std::to_string(info.multiprocessors) + " SMs)";
}

void compressor_store(const ops::compressor::store_entry& e, const ops::compressor::store_problem& p) {
  const std::size_t rows = std::size_t(e.tier), ring_floats = std::size_t(p.ring_rows) * p.ring_stride;
  mirror<const float> kv(p.kv, rows * p.in_stride), score(p.score, rows * p.in_stride);
  mirror<const float> ape(p.ape, std::size_t(ops::compressor::ratio_of(e.geometry)) * std::size_t(p.width));
  mirror<float> kv_ring(p.kv_ring, ring_floats), score_ring(p.score_ring, ring_floats);
  auto q = p;
  q.kv = kv.get(), q.score = score.get(), q.ape = ape.get(), q.kv_ring = kv_ring.get(), q.score_ring = score_ring.get();
  launcher_of(ops::compressor::store_entries(), e, ops::compressor::store_launcher_table())(q, nullptr);
  gpu::synchronize();
  back_all(kv, score, ape, kv_ring, score_ring);
}

std::function<void(const ops::compressor::emit_entry&, const ops::compressor::emit_problem&)> compressor_emit(
    std::size_t out_pad) {
  return [out_pad](const ops::compressor::emit_entry& e, const ops::compressor::emit_problem& p) {
    const std::size_t ring_floats = std::size_t(p.ring_rows) * p.ring_stride;
    mirror<const float> kv_ring(p.kv_ring, ring_floats), score_ring(p.score_ring, ring_floats);
    mirror<const float> norm(p.norm, std::size_t(p.d)), cos_sin(p.n_rot > 0 ? p.cos_sin : nullptr, std::size_t(p.n_rot));
    mirror<float> out(p.out, std::size_t(p.d) + out_pad);
    auto q = p;
    q.kv_ring = kv_ring.get(), q.score_ring = score_ring.get(), q.norm = norm.get(), q.cos_sin = cos_sin.get();
    q.out = out.get();
    launcher_of(ops::compressor::emit_entries(), e, ops::compressor::emit_launcher_table())(q, nullptr);
    gpu::synchronize();
    back_all(kv_ring, score_ring, norm, cos_sin, out);
  };
}

namespace {
template <ops::compressor::ratio Ra, class Order, ops::compressor::emitted E>
void emit_on_device(const ops::compressor::emit_problem& p) {
  compressor_emit(0)(ops::compressor::find_emit(Ra, Order::name, E), p);
}
}  // namespace

const std::vector<ops::compressor::emit_entry>& compressor_device_emit_entries() {
  static const std::vector<ops::compressor::emit_entry> all = [] {
    std::vector<ops::compressor::emit_entry> v;
    ops::compressor::op::for_each_emit_spec([&]<ops::compressor::ratio Ra, class Order, ops::compressor::emitted E>() {
      auto e = ops::compressor::find_emit(Ra, Order::name, E);
      e.run = &emit_on_device<Ra, Order, E>;
      v.push_back(e);
    });
    return v;
  }();
  return all;
}

}  // namespace ordo::test::gpu_runners
