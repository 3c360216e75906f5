/// Test harness for qmv specs: random cases with order-sensitive data (full-mantissa floats of
/// mixed magnitude and sign, weight blocks with per-block scales over many octaves), and a runner
/// that executes a registry entry on the CPU executor — or, in GPU test binaries, on the device —
/// with chosen rows in chosen slots, padded strides and NaN-poisoned padding. Shared by the CPU
/// property tests and the GPU test (tests/gpu/qmv).
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ordo/quant/random_block.hpp"
#include "ordo/registry/qmv_registry.hpp"

namespace ordo::test {

/// A weight matrix and a pool of activation rows for one format.
struct qmv_case {
  std::string format;
  int n_out = 0, k = 0;
  std::size_t weight_row_bytes = 0;      // padded: pad bytes are 0xFF (NaN f16/f32 patterns)
  std::vector<std::byte> weights;        // [n_out][weight_row_bytes]
  std::vector<std::vector<float>> pool;  // activation rows, k floats each
};

/// A float with a full 23-bit mantissa, random sign, exponent in [-exp_range, exp_range].
inline float mixed_float(quant::splitmix64& rng, int exp_range = 8) {
  const std::uint64_t r = rng();
  const std::uint32_t mant = std::uint32_t(r) & 0x7fffffu;
  const int e = int((r >> 32) % std::uint64_t(2 * exp_range + 1)) - exp_range;
  const std::uint32_t bits = (std::uint32_t(r >> 63) << 31) | (std::uint32_t(127 + e) << 23) | mant;
  return std::bit_cast<float>(bits);
}

namespace detail {
template <class F>
void fill_weights(qmv_case& c, quant::splitmix64& rng) {
  const int blocks = c.k / F::block_elems;
  const std::size_t dense = std::size_t(blocks) * F::block_bytes;
  c.weight_row_bytes = dense + 16 * std::size_t(rng() % 3);  // sometimes padded rows
  c.weights.assign(std::size_t(c.n_out) * c.weight_row_bytes, std::byte{0xFF});
  for (int r = 0; r < c.n_out; ++r) {
    auto* row = reinterpret_cast<typename F::block*>(c.weights.data() + std::size_t(r) * c.weight_row_bytes);
    for (int b = 0; b < blocks; ++b) {
      // per-block scale over 2^-4 .. 2^4 with a full mantissa: terms of very different magnitude
      const float scale = std::fabs(mixed_float(rng, 4));
      row[b] = quant::random_block<F>(rng, scale);
    }
  }
}

template <class Fn>
void with_format(std::string_view name, Fn&& fn) {
  bool found = false;
  [&]<class... Fs>(meta::type_list<Fs...>) {
    ((Fs::name == name ? (fn.template operator()<Fs>(), found = true) : false), ...);
  }(quant::all_formats{});
  if (!found) throw std::invalid_argument("unknown format " + std::string(name));
}
}  // namespace detail

inline int dot_elems_of(std::string_view format) {
  int d = 0;
  detail::with_format(format, [&]<class F>() { d = F::dot_elems; });
  return d;
}

/// A random case: nb dot blocks per row, n_out rows, `pool` activation rows.
inline qmv_case make_case(std::string_view format, int n_out, int nb, int pool, std::uint64_t seed) {
  qmv_case c;
  c.format = std::string(format);
  c.n_out = n_out;
  c.k = nb * dot_elems_of(format);
  quant::splitmix64 rng{seed};
  detail::with_format(format, [&]<class F>() { detail::fill_weights<F>(c, rng); });
  c.pool.resize(std::size_t(pool));
  for (auto& row : c.pool) {
    row.resize(std::size_t(c.k));
    for (auto& v : row) v = mixed_float(rng);
  }
  return c;
}

/// How to lay out one run.
struct qmv_layout {
  std::size_t act_pad_bytes = 0;  // extra bytes per activation row (poisoned)
  std::size_t out_pad = 0;        // extra floats per output row (must stay untouched)
  bool poison_unused_rows = true; // activation rows past `rows` up to the tier hold NaN blocks
};

/// Executes a qmv entry (and the quantizer it needs) on some backend. The CPU runner is below;
/// the GPU test provides one that uploads, launches and downloads.
struct qmv_backend {
  std::function<void(const registry::quantize_entry&, const ops::qmv::quantize_problem&)> quantize;
  std::function<void(const registry::qmv_entry&, const ops::qmv::problem&)> qmv;
};

inline qmv_backend cpu_backend() {
  return {[](const registry::quantize_entry& e, const ops::qmv::quantize_problem& p) { e.run_cpu(p); },
          [](const registry::qmv_entry& e, const ops::qmv::problem& p) { e.run_cpu(p); }};
}

inline constexpr std::uint32_t out_sentinel = 0x7fc0dea1u;  // a NaN payload no computation produces

struct qmv_result {
  std::vector<std::vector<float>> rows;  // one per requested row, n_out values
  bool padding_intact = true;            // tail rows and stride padding still hold the sentinel
};

/// Runs `entry` with pool rows `row_ids` in slots 0..n-1 (n <= entry.tier).
inline qmv_result run_qmv(const qmv_backend& be, const registry::qmv_entry& entry, const qmv_case& c,
                          const std::vector<int>& row_ids, const qmv_layout& layout = {}) {
  const int n = int(row_ids.size());
  if (n < 1 || n > entry.tier) throw std::invalid_argument("run_qmv: row count outside the tier");
  const auto& qe = registry::find_quantize(entry.activation);
  const std::size_t act_row_bytes =
      std::size_t(c.k / qe.block_elems) * std::size_t(qe.block_bytes) + layout.act_pad_bytes;
  const int tier = entry.tier;
  std::vector<std::byte> acts(std::size_t(tier) * act_row_bytes, std::byte{0xFF});  // NaN-poisoned
  std::vector<float> x(std::size_t(n) * std::size_t(c.k));
  for (int s = 0; s < n; ++s)
    std::memcpy(x.data() + std::size_t(s) * c.k, c.pool.at(std::size_t(row_ids[std::size_t(s)])).data(),
                sizeof(float) * std::size_t(c.k));
  be.quantize(qe, {x.data(), std::size_t(c.k), acts.data(), act_row_bytes, c.k, n});
  if (!layout.poison_unused_rows)
    std::fill(acts.begin() + std::ptrdiff_t(std::size_t(n) * act_row_bytes), acts.end(), std::byte{0});

  const std::size_t out_stride = std::size_t(c.n_out) + layout.out_pad;
  std::vector<std::uint32_t> out_bits(std::size_t(tier) * out_stride, out_sentinel);
  ops::qmv::problem p{c.weights.data(), c.weight_row_bytes, acts.data(), act_row_bytes,
                      reinterpret_cast<float*>(out_bits.data()), out_stride, c.n_out, c.k, n};
  be.qmv(entry, p);

  qmv_result res;
  for (int s = 0; s < tier; ++s)
    for (std::size_t j = 0; j < out_stride; ++j) {
      const bool written = s < n && j < std::size_t(c.n_out);
      if (!written && out_bits[std::size_t(s) * out_stride + j] != out_sentinel) res.padding_intact = false;
    }
  for (int s = 0; s < n; ++s) {
    std::vector<float> row(std::size_t(c.n_out));
    std::memcpy(row.data(), out_bits.data() + std::size_t(s) * out_stride, sizeof(float) * row.size());
    res.rows.push_back(std::move(row));
  }
  return res;
}

/// Bitwise equality of float vectors (NaN payloads and signed zeros included).
inline bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), sizeof(float) * a.size()) == 0;
}

/// The host replay of one output: terms by F::dot_block on CPU-quantized activations, then
/// order::replay of the entry's Order. Independent of the kernel's lane/window code.
inline std::vector<float> replay_row(const registry::qmv_entry& entry, const qmv_case& c, int pool_row) {
  std::vector<float> out(std::size_t(c.n_out));
  detail::with_format(c.format, [&]<class F>() {
    using A = typename F::activation;
    const int nb = c.k / F::dot_elems;
    std::vector<typename A::block> act(static_cast<std::size_t>(nb));
    for (int b = 0; b < nb; ++b) A::quantize(c.pool[std::size_t(pool_row)].data() + std::size_t(b) * F::dot_elems, act[std::size_t(b)]);
    std::vector<float> terms(static_cast<std::size_t>(nb));
    for (int r = 0; r < c.n_out; ++r) {
      const auto* row = reinterpret_cast<const typename F::block*>(c.weights.data() + std::size_t(r) * c.weight_row_bytes);
      for (int b = 0; b < nb; ++b) terms[std::size_t(b)] = F::dot_block(row + std::size_t(b) * quant::blocks_per_dot<F>, act[std::size_t(b)]);
      if (entry.order == order::lane_strided::name)
        out[std::size_t(r)] = order::replay<order::lane_strided>(terms.data(), nb);
      else if (entry.order == order::lane_blocked::name)
        out[std::size_t(r)] = order::replay<order::lane_blocked>(terms.data(), nb);
      else
        throw std::invalid_argument("replay_row: no replay for order " + std::string(entry.order));
    }
  });
  return out;
}

}  // namespace ordo::test
