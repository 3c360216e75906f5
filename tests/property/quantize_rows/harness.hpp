/// Test harness of quantize_rows for the generic drivers: mixed-magnitude float rows (exponents
/// over ±20 octaves, so block scales differ wildly), runs with padded strides and poisoned
/// padding, the host replay, and the oracle: every dequantized element within half a
/// quantization step of its input (derived below).
#pragma once
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "../drivers/data.hpp"
#include "../drivers/properties.hpp"
#include "ordo/ops/quantize_rows/quantize_rows.hpp"
#include "ordo/ops/quantize_rows/replay.hpp"

namespace ordo::test {

template <>
struct harness<ops::quantize_rows::op> {
  using op = ops::quantize_rows::op;
  using entry = registry::entry<op>;
  static constexpr int order_axis = -1;
  static constexpr int untiered_rows = 6;  // rows per run; the family has no tier

  struct data {
    int k = 0;
    std::vector<std::vector<float>> pool;  // k floats each
  };
  struct layout {
    std::size_t x_pad = 0;    // extra floats per input row (NaN-poisoned)
    std::size_t out_pad = 0;  // extra bytes per output row (poisoned; must stay untouched)
  };

  template <class Fn>
  static void with_activation(std::string_view name, Fn&& fn) {
    bool found = false;
    [&]<class... As>(meta::type_list<As...>) {
      ((As::name == name ? (fn.template operator()<As>(), found = true) : false), ...);
    }(meta::type_list<quant::act_f32, quant::q8_32, quant::q8_k>{});
    if (!found) throw std::invalid_argument("unknown activation format " + std::string(name));
  }

  static data make(const entry& e, int blocks, int pool, std::uint64_t seed) {
    data d;
    d.k = blocks * e.info.block_elems;
    quant::splitmix64 rng{seed};
    d.pool.resize(std::size_t(pool));
    for (auto& row : d.pool) {
      row.resize(std::size_t(d.k));
      for (auto& v : row) v = mixed_float(rng, 20);
    }
    return d;
  }
  static data draw(const entry& e, int pool, int /*case_index*/) {
    const int blocks = detail::uniform(1, e.info.block_elems == 256 ? 20 : 160);
    return make(e, blocks, pool, *rc::gen::resize(100, rc::gen::arbitrary<std::uint64_t>()));
  }
  static layout tight_layout() { return {}; }
  static layout draw_padded_layout() {
    return {std::size_t(detail::uniform(0, 9)), std::size_t(detail::uniform(0, 5)) * 4};
  }

  /// Buffers hold rows+1 rows: the one past the last live row is poisoned (input) or sentinel
  /// (output) and must be neither read nor written.
  static run_result run(const backend& be, const entry& e, const data& d, const std::vector<int>& ids, const layout& l) {
    const int n = int(ids.size());
    const std::size_t x_stride = std::size_t(d.k) + l.x_pad;
    const std::size_t row_bytes = std::size_t(d.k / e.info.block_elems) * std::size_t(e.info.block_bytes) + l.out_pad;
    std::vector<float> x(std::size_t(n + 1) * x_stride, std::bit_cast<float>(0x7fc00bad));  // NaN poison
    for (int s = 0; s < n; ++s)
      std::memcpy(x.data() + std::size_t(s) * x_stride, d.pool.at(std::size_t(ids[std::size_t(s)])).data(), sizeof(float) * std::size_t(d.k));
    std::vector<std::byte> out(std::size_t(n + 1) * row_bytes, poison);
    be.run(e, {x.data(), x_stride, out.data(), row_bytes, d.k, n});
    run_result r;
    const std::size_t dense = row_bytes - l.out_pad;
    for (int s = 0; s <= n; ++s)
      for (std::size_t j = (s < n ? dense : 0); j < row_bytes; ++j)
        r.padding_intact = r.padding_intact && out[std::size_t(s) * row_bytes + j] == poison;
    for (int s = 0; s < n; ++s)
      r.rows.emplace_back(out.begin() + std::ptrdiff_t(std::size_t(s) * row_bytes),
                          out.begin() + std::ptrdiff_t(std::size_t(s) * row_bytes + dense));
    return r;
  }

  static std::vector<std::byte> replay(const entry& e, const data& d, int pool_row) {
    std::vector<std::byte> bytes;
    with_activation(e.info.activation, [&]<class A>() {
      const auto blocks = ops::quantize_rows::replay_row<A>(d.pool[std::size_t(pool_row)].data(), d.k);
      bytes.resize(blocks.size() * sizeof(typename A::block));
      std::memcpy(bytes.data(), blocks.data(), bytes.size());
    });
    return bytes;
  }

  /// Round-to-nearest quantization: |x − d·q| <= d/2 for the exact scale d, and the computed
  /// d·q, x/d and d itself carry a few roundings each; we allow d/2·(1 + 2^-20) + 2^-20·|x|
  /// (2^-20 = 16 ulps, over the at most 4 roundings on the path). act_f32 must be exact.
  static std::string oracle(const entry& e, const data& d, int pool_row, const std::vector<std::byte>& got) {
    std::string why;
    with_activation(e.info.activation, [&]<class A>() {
      const auto* blocks = reinterpret_cast<const typename A::block*>(got.data());
      const float* x = d.pool[std::size_t(pool_row)].data();
      float deq[256];
      for (int b = 0; b < d.k / A::block_elems && why.empty(); ++b) {
        A::dequant(blocks[b], deq);
        double step = 0.0;
        if constexpr (requires { blocks[b].d; }) step = std::fabs(double(blocks[b].d));
        for (int j = 0; j < A::block_elems; ++j) {
          const double xv = x[b * A::block_elems + j];
          const double bound = 0.5 * step * (1 + 0x1p-20) + 0x1p-20 * std::fabs(xv);
          if (!(std::fabs(double(deq[j]) - xv) <= bound)) {
            why = "block " + std::to_string(b) + " element " + std::to_string(j) + ": x=" + std::to_string(xv) +
                  " dequantized=" + std::to_string(deq[j]) + " bound=" + std::to_string(bound);
            break;
          }
        }
      }
    });
    return why;
  }

  static op::problem to_device(const entry&, const op::problem& p, device_mover& m) {
    auto q = p;
    q.x = reinterpret_cast<const float*>(m.in(p.x, sizeof(float) * p.x_stride * std::size_t(p.rows + 1)));
    q.out = m.inout(p.out, p.out_row_bytes * std::size_t(p.rows + 1));
    return q;
  }
};

}  // namespace ordo::test
