// Promise E2 for ordo/quant: every format's dequant and dot_block, the activation quantizers
// (q8_32, q8_k) and the Q8_0 block quantizer give the same bits on the device as on the host.
// Inputs are random_block weights of many scales, random-byte blocks (finite f16 fields), and
// activation rows of mixed magnitude with all-zero rows and exact rounding ties. Prints a table
// (what, results, mismatches) and exits 1 on any mismatch; without a device it prints "SKIP: ..."
// and exits 0 (CTest then reports the test as skipped).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <vector>

#include "ordo/gpu/portability.hpp"
#include "ordo/gpu/device_api.hpp"
#include "ordo/quant/formats.hpp"
#include "ordo/quant/quantize_q8_0.hpp"
#include "ordo/quant/random_block.hpp"
#include "../gpu_test_main.hpp"

namespace {

namespace q = ordo::quant;

constexpr std::size_t dots_per_format = std::size_t{1} << 13;

#if defined(ORDO_GPU)
template <class F>
ORDO_GLOBAL void dequant_kernel(const typename F::block* w, float* out, std::size_t blocks) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < blocks) F::dequant(w[i], out + i * F::block_elems);
}
template <class F>
ORDO_GLOBAL void dot_kernel(const typename F::block* w, const typename F::activation::block* x, float* out,
                            std::size_t dots) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < dots) out[i] = F::dot_block(w + i * q::blocks_per_dot<F>, x[i]);
}
template <class A>
ORDO_GLOBAL void quantize_kernel(const float* x, typename A::block* out, std::size_t blocks) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < blocks) A::quantize(x + i * A::block_elems, out[i]);
}
ORDO_GLOBAL void quantize_q8_0_kernel(const float* x, q::q8_0::block* out, std::size_t blocks) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < blocks) q::quantize_q8_0_block(x + i * 32, out[i]);
}

unsigned grid_for(std::size_t n) { return static_cast<unsigned>((n + 127) / 128); }

template <class T>
std::vector<T> run_on_device(const auto& launch, std::size_t out_count) {
  std::vector<T> out(out_count);
  ordo::gpu::device_buffer<T> d_out(out_count);
  launch(d_out.data());
  ORDO_GPU_CHECK_LAUNCH();
  ordo::gpu::synchronize();
  d_out.download(out.data(), out_count);
  return out;
}

std::size_t total_mismatches = 0;

void report(const char* what, std::size_t n, std::size_t mismatches) {
  std::printf("%-22s %10zu %10zu\n", what, n, mismatches);
  total_mismatches += mismatches;
}

std::size_t count_byte_mismatches(const void* a, const void* b, std::size_t items, std::size_t item_bytes) {
  std::size_t m = 0;
  for (std::size_t i = 0; i < items; ++i)
    m += std::memcmp(static_cast<const char*>(a) + i * item_bytes, static_cast<const char*>(b) + i * item_bytes,
                     item_bytes) != 0;
  return m;
}

/// Activation rows: mixed magnitudes 2^[-20, 20], every 16th block all zero, every 16th (offset 8)
/// block of small integers and halves (exact rounding ties), every 16th (offset 4) block tiny
/// (2^[-149, -110]: the quantizers' inverse scale can overflow to infinity).
std::vector<float> activation_rows(std::size_t n, std::uint64_t seed) {
  q::splitmix64 rng{seed};
  std::vector<float> x(n);
  for (std::size_t g = 0; g < n; g += 32) {
    const std::size_t kind = (g / 32) % 16;
    const float scale = std::ldexp(1.0f, static_cast<int>(rng() % 41u) - 20);
    for (std::size_t i = g; i < g + 32; ++i) {
      if (kind == 0) x[i] = 0.0f;
      else if (kind == 8) x[i] = static_cast<float>(static_cast<int>(rng() % 255u) - 127) * 0.5f;
      else if (kind == 4) x[i] = q::uniform_pm1(rng) * std::ldexp(1.0f, static_cast<int>(rng() % 40u) - 149);
      else x[i] = (q::uniform_pm1(rng) + q::uniform01(rng) * 0x1p-20f) * scale;
    }
  }
  return x;
}

template <class F>
void check_format(std::uint64_t seed) {
  namespace gpu = ordo::gpu;
  using act = typename F::activation;
  constexpr std::size_t bpd = q::blocks_per_dot<F>;
  const std::size_t nblocks = dots_per_format * bpd;
  q::splitmix64 rng{seed};
  std::vector<typename F::block> w(nblocks);
  for (std::size_t i = 0; i < nblocks; ++i) {
    if (i % 4 == 3) {  // random bytes, f16 fields kept finite
      q::detail::random_bytes(rng, &w[i], sizeof w[i]);
      auto finite = [](std::uint16_t& h) {
        if ((h & 0x7c00u) == 0x7c00u) h = static_cast<std::uint16_t>(h & ~0x4000u);
      };
      if constexpr (requires { w[i].dmin; }) finite(w[i].dmin);
      if constexpr (requires { w[i].d; }) {
        if constexpr (sizeof(w[i].d) == 2) finite(w[i].d);
      }
      if constexpr (requires { w[i].bits; }) finite(w[i].bits);
      if constexpr (requires { w[i].v; }) {
        if (!std::isfinite(w[i].v)) w[i].v = 1.0f;
      }
    } else {
      w[i] = q::random_block<F>(rng, std::ldexp(1.0f, static_cast<int>(i % 23) - 11));
    }
  }
  const std::vector<float> xs = activation_rows(dots_per_format * act::block_elems, seed ^ 0xabcdefu);
  std::vector<typename act::block> x(dots_per_format);
  for (std::size_t i = 0; i < dots_per_format; ++i) act::quantize(xs.data() + i * act::block_elems, x[i]);

  gpu::device_buffer<typename F::block> d_w(nblocks);
  gpu::device_buffer<typename act::block> d_x(dots_per_format);
  d_w.upload(w.data(), nblocks);
  d_x.upload(x.data(), dots_per_format);

  // dequant
  const std::size_t nelem = nblocks * F::block_elems;
  const auto dev_deq = run_on_device<float>(
      [&](float* out) { dequant_kernel<F><<<grid_for(nblocks), 128>>>(d_w.data(), out, nblocks); }, nelem);
  std::vector<float> host_deq(nelem);
  for (std::size_t i = 0; i < nblocks; ++i) F::dequant(w[i], host_deq.data() + i * F::block_elems);
  char what[64];
  std::snprintf(what, sizeof what, "%s dequant", F::name.data());
  report(what, nelem, count_byte_mismatches(dev_deq.data(), host_deq.data(), nelem, sizeof(float)));

  // dot_block
  const auto dev_dot = run_on_device<float>(
      [&](float* out) {
        dot_kernel<F><<<grid_for(dots_per_format), 128>>>(d_w.data(), d_x.data(), out, dots_per_format);
      },
      dots_per_format);
  std::vector<float> host_dot(dots_per_format);
  for (std::size_t i = 0; i < dots_per_format; ++i) host_dot[i] = F::dot_block(w.data() + i * bpd, x[i]);
  std::snprintf(what, sizeof what, "%s dot_block", F::name.data());
  std::size_t m = count_byte_mismatches(dev_dot.data(), host_dot.data(), dots_per_format, sizeof(float));
  std::size_t shown = 0;
  for (std::size_t i = 0; i < dots_per_format; ++i)
    if (std::memcmp(&dev_dot[i], &host_dot[i], 4) != 0 && shown++ < 3)
      std::printf("  %s dot %zu: host %a device %a\n", F::name.data(), i, static_cast<double>(host_dot[i]),
                  static_cast<double>(dev_dot[i]));
  report(what, dots_per_format, m);
}

template <class A>
void check_activation(std::uint64_t seed) {
  namespace gpu = ordo::gpu;
  const std::size_t blocks = std::size_t{1} << 14;
  const std::vector<float> xs = activation_rows(blocks * A::block_elems, seed);
  gpu::device_buffer<float> d_x(xs.size());
  d_x.upload(xs.data(), xs.size());
  const auto dev = run_on_device<typename A::block>(
      [&](typename A::block* out) { quantize_kernel<A><<<grid_for(blocks), 128>>>(d_x.data(), out, blocks); }, blocks);
  std::vector<typename A::block> host(blocks);
  for (std::size_t i = 0; i < blocks; ++i) A::quantize(xs.data() + i * A::block_elems, host[i]);
  char what[64];
  std::snprintf(what, sizeof what, "%s quantize", A::name.data());
  report(what, blocks, count_byte_mismatches(dev.data(), host.data(), blocks, sizeof(typename A::block)));
}

void check_q8_0_quantizer(std::uint64_t seed) {
  namespace gpu = ordo::gpu;
  const std::size_t blocks = std::size_t{1} << 15;
  const std::vector<float> xs = activation_rows(blocks * 32, seed);
  gpu::device_buffer<float> d_x(xs.size());
  d_x.upload(xs.data(), xs.size());
  const auto dev = run_on_device<q::q8_0::block>(
      [&](q::q8_0::block* out) { quantize_q8_0_kernel<<<grid_for(blocks), 128>>>(d_x.data(), out, blocks); }, blocks);
  std::vector<q::q8_0::block> host(blocks);
  q::quantize_q8_0_row(xs.data(), host.data(), xs.size());
  report("q8_0 weight quantize", blocks, count_byte_mismatches(dev.data(), host.data(), blocks, sizeof(q::q8_0::block)));
}

int run() {
  const ordo::gpu::device_info dev = ordo::gpu::query_device(0);
  std::printf("device: %s\n", dev.name.c_str());
  std::printf("%-22s %10s %10s\n", "what", "results", "mismatches");
  check_format<q::f32>(1);
  check_format<q::f16>(2);
  check_format<q::bf16>(3);
  check_format<q::q8_0>(4);
  check_format<q::mxfp4>(5);
  check_format<q::q4_k>(6);
  check_format<q::q2_k>(7);
  check_format<q::iq2_xxs>(8);
  check_activation<q::q8_32>(9);
  check_activation<q::q8_k>(10);
  check_q8_0_quantizer(11);
  std::printf("%s: %zu mismatching results\n", total_mismatches == 0 ? "PASS" : "FAIL", total_mismatches);
  return total_mismatches == 0 ? 0 : 1;
}
#endif

}  // namespace

int main() {
  return ordo::gpu::test::gpu_test_main("quant_gpu_test", "quant host/device bit equality", [] { return run(); });
}
