// GPU qmv_backend: host buffers in, host buffers out, the registry's GPU launch in between.
#include "gpu_backend.hpp"

#include <cstring>
#include <stdexcept>

#include "ordo/gpu/device_api.hpp"

namespace ordo::test {

int gpu_device_count() { return gpu::device_count(); }

std::string gpu_device_name() {
  const auto info = gpu::query_device(0);
  return info.name + " (" + std::to_string(info.multiprocessors) + " SMs)";
}

namespace {
/// Copies `bytes` of host memory to a new device buffer.
template <class T>
gpu::device_buffer<std::byte> upload(const T* host, std::size_t bytes) {
  gpu::device_buffer<std::byte> d(bytes);
  d.upload(reinterpret_cast<const std::byte*>(host), bytes);
  return d;
}
}  // namespace

qmv_backend gpu_backend() {
  qmv_backend be;
  be.quantize = [](const registry::quantize_entry& e, const ops::qmv::quantize_problem& p) {
    if (!e.launch_gpu) throw std::runtime_error("no GPU quantizer for " + std::string(e.activation));
    const std::size_t x_bytes = sizeof(float) * p.x_stride * std::size_t(p.rows);
    const std::size_t out_bytes = p.out_row_bytes * std::size_t(p.rows);
    auto dx = upload(p.x, x_bytes);
    auto dout = upload(p.out, out_bytes);  // keep the caller's poison in row padding
    auto q = p;
    q.x = reinterpret_cast<const float*>(dx.data());
    q.out = dout.data();
    e.launch_gpu(q, nullptr);
    gpu::synchronize();
    dout.download(p.out, out_bytes);
  };
  be.qmv = [](const registry::qmv_entry& e, const ops::qmv::problem& p) {
    if (!e.launch_gpu) throw std::runtime_error("no GPU kernel for " + std::string(e.name.view()));
    const std::size_t w_bytes = p.weight_row_bytes * std::size_t(p.n_out);
    const std::size_t a_bytes = p.act_row_bytes * std::size_t(e.tier);  // unused rows travel too (poisoned)
    const std::size_t o_bytes = sizeof(float) * p.out_stride * std::size_t(e.tier);
    auto dw = upload(p.weights, w_bytes);
    auto da = upload(p.acts, a_bytes);
    auto dout = upload(p.out, o_bytes);  // sentinels must survive
    auto q = p;
    q.weights = dw.data();
    q.acts = da.data();
    q.out = reinterpret_cast<float*>(dout.data());
    e.launch_gpu(q, nullptr);
    gpu::synchronize();
    dout.download(reinterpret_cast<std::byte*>(p.out), o_bytes);
  };
  return be;
}

}  // namespace ordo::test
