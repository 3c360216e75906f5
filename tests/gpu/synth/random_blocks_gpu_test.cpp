// fill_random_gpu == fill_random_cpu byte for byte (ordo/synth/random_blocks.hpp): every format
// at 1, 255, 4099 blocks and one fill over 64 MiB, tensor slices (first_block != 0), destinations
// at offsets 0..3 (the kernel's word and byte store paths), with guard bytes on both sides that
// must stay untouched; then a 5 GiB Q2_K fill (offsets past 2^32) compared on three slices and
// timed. Prints a table and a PASS/FAIL line last; exits 1 on any mismatch. Without a device it
// prints "SKIP: ..." and exits 0 (CTest reports it skipped).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <vector>

#include "ordo/gpu/device_api.hpp"
#include "ordo/model/gguf_types.hpp"
#include "ordo/quant/formats.hpp"
#include "ordo/synth/random_blocks.hpp"
#include "../gpu_test_main.hpp"

namespace {

#if defined(ORDO_GPU)
using namespace ordo;
using gguf::ggml_type;

constexpr std::size_t guard = 64;
constexpr unsigned char sentinel = 0xa5;
std::size_t total_mismatches = 0;

const quant::format_info& format_of(ggml_type t) { return *quant::find_format(static_cast<uint32_t>(t)); }

std::size_t mismatching_bytes(const std::vector<std::byte>& a, const std::vector<std::byte>& b) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < a.size(); ++i) n += a[i] != b[i];
  return n;
}

// One fill on the device at byte offset `offset` of a buffer with `guard` sentinel bytes around it.
void check_fill(const synth::random_fill& f, unsigned offset) {
  const uint64_t bytes = synth::random_fill_bytes(f);
  std::vector<std::byte> host(bytes);
  synth::fill_random_cpu(host.data(), f);
  const std::size_t before = guard + offset;  // device allocations are at least 256-byte aligned
  gpu::device_buffer<unsigned char> buf(bytes + 2 * guard + 4);
  gpu::device_memset(buf.data(), sentinel, buf.size());
  unsigned char* dst = buf.data() + before;
  synth::fill_random_gpu(reinterpret_cast<std::byte*>(dst), f, nullptr);
  gpu::synchronize();
  std::vector<unsigned char> all(buf.size());
  buf.download(all.data(), all.size());
  std::vector<std::byte> device(bytes);
  std::memcpy(device.data(), all.data() + before, bytes);
  std::size_t outside = 0;
  for (std::size_t i = 0; i < all.size(); ++i)
    if ((i < before || i >= before + bytes) && all[i] != sentinel) ++outside;
  const std::size_t bad = mismatching_bytes(host, device) + outside;
  total_mismatches += bad;
  std::printf("%-8s %10llu blocks from %-8llu offset %u %12llu bytes %10zu mismatches%s\n", format_of(f.type).name.data(),
              static_cast<unsigned long long>(f.n_elems / format_of(f.type).block_elems),
              static_cast<unsigned long long>(f.first_block), offset, static_cast<unsigned long long>(bytes), bad,
              outside ? " (writes outside the range)" : "");
}

// A fill past 2^32 bytes: timed, then three slices compared against CPU fills of the same blocks.
void check_large(ggml_type t, uint64_t bytes_wanted) {
  const auto& fi = format_of(t);
  const uint64_t blocks = bytes_wanted / fi.block_bytes;
  const synth::random_fill f{t, blocks * fi.block_elems, 0.01f, 3, synth::random_fill_key("blk.42.ffn_down_exps.weight")};
  const uint64_t bytes = synth::random_fill_bytes(f);
  gpu::device_buffer<unsigned char> buf(bytes);
  synth::fill_random_gpu(reinterpret_cast<std::byte*>(buf.data()), f, nullptr);  // warm-up
  gpu::event_timer timer;
  timer.record_start();
  synth::fill_random_gpu(reinterpret_cast<std::byte*>(buf.data()), f, nullptr);
  const float ms = timer.elapsed_ms();
  const uint64_t slice = 1u << 20;
  std::size_t bad = 0;
  for (uint64_t first : {uint64_t{0}, (uint64_t{1} << 32) / fi.block_bytes + 12345, blocks - slice}) {
    synth::random_fill part = f;
    part.first_block = first;
    part.n_elems = slice * fi.block_elems;
    std::vector<std::byte> host(synth::random_fill_bytes(part)), device(host.size());
    synth::fill_random_cpu(host.data(), part);
    gpu::copy_to_host(reinterpret_cast<unsigned char*>(device.data()), buf.data() + first * fi.block_bytes, device.size());
    bad += mismatching_bytes(host, device);
  }
  total_mismatches += bad;
  std::printf("%-8s %10llu blocks, %.2f GiB: %.2f ms, %.1f GB/s; 3 slices of %llu blocks: %zu mismatches\n",
              fi.name.data(), static_cast<unsigned long long>(blocks), double(bytes) / double(1ull << 30), ms,
              double(bytes) / (ms * 1e6), static_cast<unsigned long long>(slice), bad);
}

int run() {
  std::printf("device: %s\n", gpu::query_device(0).name.c_str());
  const ggml_type types[] = {ggml_type::f32,  ggml_type::f16,  ggml_type::bf16,    ggml_type::q8_0,
                             ggml_type::q2_k, ggml_type::q4_k, ggml_type::iq2_xxs, ggml_type::mxfp4};
  const float stddevs[] = {0.02f, 0.5f, 3.0f};
  int c = 0;
  for (ggml_type t : types) {
    const auto& fi = format_of(t);
    const uint64_t over_64_mib = ((uint64_t{64} << 20) + (uint64_t{3} << 20)) / fi.block_bytes + 77;
    for (uint64_t blocks : {uint64_t{1}, uint64_t{255}, uint64_t{4099}, over_64_mib})
      for (uint64_t first : {uint64_t{0}, uint64_t{1000003}})
        for (unsigned offset : {0u, 1u, 2u, 3u}) {
          // The large fill once per store path (offset 0: words, 1: bytes), as a whole tensor.
          if (blocks == over_64_mib && (first != 0 || offset > 1)) continue;
          const float s = stddevs[c++ % 3];
          check_fill({t, blocks * fi.block_elems, s, 11, synth::random_fill_key(fi.name), first}, offset);
        }
  }
  check_large(ggml_type::q2_k, uint64_t{5} << 30);
  check_large(ggml_type::iq2_xxs, uint64_t{5} << 30);
  std::printf("%s: %zu mismatching bytes\n", total_mismatches == 0 ? "PASS" : "FAIL", total_mismatches);
  return total_mismatches == 0 ? 0 : 1;
}
#endif

}  // namespace

int main() {
  return ordo::gpu::test::gpu_test_main("random_blocks_gpu_test", "fill_random_gpu == fill_random_cpu", [] { return run(); });
}
