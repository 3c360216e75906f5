// Host side of ordo/synth/random_blocks.hpp: the key hash, validation, the per-fill parameters
// (fill_block.hpp explains them) and the CPU fill. The GPU fill is random_blocks_gpu.cpp.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "ordo/quant/visit_format.hpp"
#include "ordo/synth/random_blocks.hpp"
#include "synth/fill_block.hpp"

namespace ordo::synth {

uint64_t random_fill_key(std::string_view tensor_name) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : tensor_name) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

uint64_t random_fill_bytes(const random_fill& f) {
  const std::string what = "random fill of " + gguf::to_string(f.type);
  if (!(f.stddev >= min_stddev && f.stddev <= max_stddev))
    throw std::invalid_argument(what + ": stddev " + std::to_string(f.stddev) + " is outside [2^-14, 2^12]");
  return quant::visit_format(
      f.type,
      [&]<class F>(F) -> uint64_t {
        if (f.n_elems % F::block_elems != 0)
          throw std::invalid_argument(what + ": " + std::to_string(f.n_elems) + " elements are not a whole number of " +
                                      std::to_string(F::block_elems) + "-element blocks");
        return f.n_elems / F::block_elems * F::block_bytes;
      },
      what);
}

namespace detail {

// Every quantity here is a correctly rounded double operation (sqrt and frexp included), so the
// parameters, and with them the bytes, are the same on every host.
fill_params make_fill_params(const random_fill& f) {
  (void)random_fill_bytes(f);  // validates
  fill_params p{};
  p.stream = mix64(f.key ^ mix64(f.seed + golden));
  p.first_block = f.first_block;
  const double s = f.stddev;
  p.amp = static_cast<float>(s * std::sqrt(3.0));
  auto d_base = [&](double unit_variance) { return static_cast<float>(s / std::sqrt(unit_variance)); };
  using T = gguf::ggml_type;
  switch (f.type) {
    case T::q8_0: p.d_base = d_base(q8_0_unit_variance); break;
    case T::q2_k: p.d_base = d_base(q2_k_unit_variance); break;
    case T::q4_k: p.d_base = d_base(q4_k_unit_variance); break;
    case T::iq2_xxs: p.d_base = d_base(iq2_xxs_unit_variance); break;
    case T::mxfp4: {
      // The scale 2^(e-128) should be a = s/√34.25. With a = 2^k·√r, r ∈ [1, 4): picking e = k + 129
      // with probability q and k + 128 otherwise gives E[4^(e-128)] = 4^k·(1 + 3q) = a² for q = (r-1)/3.
      int x = 0;
      const double m = std::frexp(s / std::sqrt(mxfp4_code_variance), &x);  // a = m·2^x, m ∈ [0.5, 1)
      const double r = 4.0 * m * m;
      p.mxfp4_e = x - 1 + 128;
      p.mxfp4_up = static_cast<uint32_t>(std::min((r - 1.0) / 3.0 * 0x1p32, 0x1p32 - 1.0));
      break;
    }
    default: break;  // float formats use amp only
  }
  return p;
}

}  // namespace detail

void fill_random_cpu(std::byte* dst, const random_fill& f, unsigned threads) {
  const detail::fill_params p = detail::make_fill_params(f);
  quant::visit_format(f.type, [&]<class F>(F) {
    const uint64_t blocks = f.n_elems / F::block_elems;
    auto fill = [&](uint64_t lo, uint64_t hi) {
      for (uint64_t i = lo; i < hi; ++i) {
        const typename F::block b = detail::fill_block<F>(p, i);
        std::memcpy(dst + i * F::block_bytes, &b, F::block_bytes);
      }
    };
    // Automatic: threads only pay off for fills of a few MiB. Each takes a contiguous range of blocks.
    constexpr uint64_t bytes_per_thread = uint64_t{4} << 20;
    const unsigned hw = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
    const uint64_t wanted = threads ? threads : std::min<uint64_t>(hw, blocks * F::block_bytes / bytes_per_thread);
    const unsigned n = static_cast<unsigned>(std::min<uint64_t>(wanted, blocks));
    if (n <= 1) return fill(0, blocks);
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < n; ++t) pool.emplace_back(fill, blocks * t / n, blocks * (t + 1) / n);
    for (auto& th : pool) th.join();
  });
}

}  // namespace ordo::synth
