/// Test harness of qmv for the generic drivers (tests/property/drivers): random cases with
/// order-sensitive data (full-mantissa floats of mixed magnitude and sign; weight blocks with
/// per-block scales over 2^-4..2^4), runs of an entry with chosen pool rows in chosen slots with
/// padded strides and NaN-poisoned padding (weights, activations, unused rows), the host replay,
/// and the double-precision oracle with its derived bound (see `oracle`).
#pragma once
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include ORDO_TUNE_HEADER
#include "../drivers/data.hpp"
#include "../drivers/properties.hpp"
#include "../quantize_rows/harness.hpp"
#include "dot_oracle.hpp"
#include "ordo/ops/qmv/qmv.hpp"
#include "ordo/ops/qmv/replay.hpp"
#include "ordo/order/replay.hpp"

namespace ordo::test {

template <>
struct harness<ops::qmv::op> {
  using op = ops::qmv::op;
  using entry = registry::entry<op>;
  static constexpr int order_axis = 2;     // (format, tier, order)
  static constexpr int untiered_rows = 1;  // unused: every qmv spec has a tier

  struct data {
    std::string format;
    int n_out = 0, nb = 0, k = 0;
    std::size_t dense_row_bytes = 0;
    std::vector<std::byte> weights;        // [n_out][dense_row_bytes]
    std::vector<std::vector<float>> pool;  // activation rows, k floats each
  };
  struct layout {
    std::size_t weight_pad = 0;   // extra bytes per weight row (NaN-poisoned)
    std::size_t act_pad = 0;      // extra bytes per activation row (poisoned)
    std::size_t out_pad = 0;      // extra floats per output row (sentinel; must stay untouched)
    bool poison_unused_rows = true;  // activation rows past the live ones, up to the tier: poison or zeros
  };

  template <class Fn>
  static void with_format(std::string_view name, Fn&& fn) {
    bool found = false;
    [&]<class... Fs>(meta::type_list<Fs...>) {
      ((Fs::name == name ? (fn.template operator()<Fs>(), found = true) : false), ...);
    }(quant::all_formats{});
    if (!found) throw std::invalid_argument("unknown format " + std::string(name));
  }
  template <class Fn>
  static void with_order(std::string_view name, Fn&& fn) {
    bool found = false;
    [&]<class... Os>(meta::type_list<Os...>) {
      ((Os::name == name ? (fn.template operator()<Os>(), found = true) : false), ...);
    }(typename tune::preset::qmv::orders{});
    if (!found) throw std::invalid_argument("no replay for order " + std::string(name));
  }

  /// A case: n_out weight rows of nb dot blocks, `pool` activation rows.
  static data make(std::string_view format, int n_out, int nb, int pool, std::uint64_t seed) {
    data d;
    d.format = std::string(format);
    d.n_out = n_out;
    d.nb = nb;
    quant::splitmix64 rng{seed};
    with_format(format, [&]<class F>() {
      d.k = nb * F::dot_elems;
      const int blocks = d.k / F::block_elems;
      d.dense_row_bytes = std::size_t(blocks) * F::block_bytes;
      d.weights.resize(std::size_t(n_out) * d.dense_row_bytes);
      for (int r = 0; r < n_out; ++r) {
        auto* row = reinterpret_cast<typename F::block*>(d.weights.data() + std::size_t(r) * d.dense_row_bytes);
        for (int b = 0; b < blocks; ++b) row[b] = quant::random_block<F>(rng, std::fabs(mixed_float(rng, 4)));
      }
    });
    d.pool.resize(std::size_t(pool));
    for (auto& row : d.pool) {
      row.resize(std::size_t(d.k));
      for (auto& v : row) v = mixed_float(rng);
    }
    return d;
  }

  /// Shapes by case: tails (nb in 33..97, not a multiple of 32), DS4 reduction lengths, short
  /// rows (< 32 blocks: some lanes idle), and up to 300 blocks (more than one sm90 window).
  static data draw(const entry& e, int pool, int c) {
    int nb = 1;
    switch (c % 4) {
      case 0: nb = detail::uniform(33, 97); nb += nb % 32 == 0; break;
      case 1: nb = std::max(1, (4096 >> detail::uniform(0, 3)) / e.info.dot_elems); break;
      case 2: nb = detail::uniform(1, 31); break;
      default: nb = detail::uniform(1, 300); break;
    }
    const int n_out = detail::uniform(1, 24);
    return make(e.info.format, n_out, nb, pool, *rc::gen::resize(100, rc::gen::arbitrary<std::uint64_t>()));
  }
  /// P5's cases: tails only (33..300 blocks, never a multiple of 32), 16 weight rows.
  static data tail_data(const entry& e, int pool, std::uint64_t seed) {
    quant::splitmix64 rng{seed};
    int nb = 33 + int(rng() % 268);
    nb += nb % 32 == 0;
    return make(e.info.format, 16, nb, pool, rng());
  }

  static layout tight_layout() { return {0, 0, 0, false}; }
  static layout draw_padded_layout() {
    layout l;
    l.weight_pad = std::size_t(detail::uniform(0, 6)) * 4;  // weight blocks stay 4-byte aligned (and 16-byte for some)
    l.act_pad = std::size_t(detail::uniform(0, 4)) * 4;
    l.out_pad = std::size_t(detail::uniform(0, 8));
    l.poison_unused_rows = true;
    return l;
  }

  static run_result run(const backend& be, const entry& e, const data& d, const std::vector<int>& ids, const layout& l) {
    const int n = int(ids.size());
    if (n < 1 || n > e.tier) throw std::invalid_argument("run: row count outside the tier");
    // weights at the layout's row stride, padding poisoned
    const std::size_t w_stride = d.dense_row_bytes + l.weight_pad;
    std::vector<std::byte> weights(std::size_t(d.n_out) * w_stride, poison);
    for (int r = 0; r < d.n_out; ++r)
      std::memcpy(weights.data() + std::size_t(r) * w_stride, d.weights.data() + std::size_t(r) * d.dense_row_bytes, d.dense_row_bytes);
    // activations: quantized by the shipped quantizer on the same backend, into poisoned rows
    const auto& qe = registry::find_axes<ops::quantize_rows::op>(e.info.activation);
    const std::size_t act_row_bytes = std::size_t(d.k / qe.info.block_elems) * std::size_t(qe.info.block_bytes) + l.act_pad;
    std::vector<std::byte> acts(std::size_t(e.tier + 1) * act_row_bytes, poison);
    std::vector<float> x(std::size_t(n + 1) * std::size_t(d.k), 0.0f);
    for (int s = 0; s < n; ++s)
      std::memcpy(x.data() + std::size_t(s) * std::size_t(d.k), d.pool.at(std::size_t(ids[std::size_t(s)])).data(),
                  sizeof(float) * std::size_t(d.k));
    be.run(qe, {x.data(), std::size_t(d.k), acts.data(), act_row_bytes, d.k, n});
    if (!l.poison_unused_rows) std::fill(acts.begin() + std::ptrdiff_t(std::size_t(n) * act_row_bytes), acts.end(), std::byte{0});
    // outputs: sentinel everywhere; only [n][n_out] may change
    const std::size_t out_stride = std::size_t(d.n_out) + l.out_pad;
    std::vector<std::uint32_t> out(std::size_t(e.tier) * out_stride, out_sentinel);
    be.run(e, {weights.data(), w_stride, acts.data(), act_row_bytes, reinterpret_cast<float*>(out.data()), out_stride,
               d.n_out, d.k, n});
    run_result res;
    for (int s = 0; s < e.tier; ++s)
      for (std::size_t j = 0; j < out_stride; ++j)
        if (!(s < n && j < std::size_t(d.n_out)) && out[std::size_t(s) * out_stride + j] != out_sentinel) res.padding_intact = false;
    for (int s = 0; s < n; ++s) {
      const auto* begin = reinterpret_cast<const std::byte*>(out.data() + std::size_t(s) * out_stride);
      res.rows.emplace_back(begin, begin + sizeof(float) * std::size_t(d.n_out));
    }
    return res;
  }

  static std::vector<float> outputs(const std::vector<std::byte>& row) {
    std::vector<float> v(row.size() / sizeof(float));
    std::memcpy(v.data(), row.data(), row.size());
    return v;
  }

  /// Activation blocks of a pool row, quantized on the host by A::quantize.
  template <class F>
  static std::vector<typename F::activation::block> host_acts(const data& d, int pool_row) {
    return ops::quantize_rows::replay_row<typename F::activation>(d.pool[std::size_t(pool_row)].data(), d.k);
  }

  static std::vector<std::byte> replay(const entry& e, const data& d, int pool_row) {
    std::vector<float> out;
    with_format(d.format, [&]<class F>() {
      const auto act = host_acts<F>(d, pool_row);
      with_order(e.info.order, [&]<class O>() {
        out = ops::qmv::replay_row<F, O>(d.weights.data(), d.dense_row_bytes, d.n_out, act.data(), d.nb);
      });
    });
    std::vector<std::byte> bytes(out.size() * sizeof(float));
    std::memcpy(bytes.data(), out.data(), bytes.size());
    return bytes;
  }

  /// The oracle: every output within dot_oracle's derived bound (dot_oracle.hpp states it).
  static std::string oracle(const entry& e, const data& d, int pool_row, const std::vector<std::byte>& got_bytes) {
    std::string why;
    const auto got = outputs(got_bytes);
    with_format(d.format, [&]<class F>() {
      using A = typename F::activation;
      const auto act = host_acts<F>(d, pool_row);
      std::vector<float> x(std::size_t(d.k));
      for (int b = 0; b < d.nb; ++b) A::dequant(act[std::size_t(b)], x.data() + std::size_t(b) * A::block_elems);
      with_order(e.info.order, [&]<class O>() {
        for (int r = 0; r < d.n_out && why.empty(); ++r) {
          const auto* row = reinterpret_cast<const typename F::block*>(d.weights.data() + std::size_t(r) * d.dense_row_bytes);
          const dot_estimate est = dot_oracle<F, O>(row, x.data(), d.nb);
          const double diff = std::fabs(double(got[std::size_t(r)]) - est.exact);
          if (!(diff <= est.bound))
            why = "out[" + std::to_string(r) + "] = " + std::to_string(got[std::size_t(r)]) + ", exact " +
                  std::to_string(est.exact) + ", |diff| " + std::to_string(diff) + " > bound " + std::to_string(est.bound) +
                  " (nb " + std::to_string(d.nb) + ", n_out " + std::to_string(d.n_out) + ")";
        }
      });
    });
    return why;
  }

  static op::problem to_device(const entry& e, const op::problem& p, device_mover& m) {
    auto q = p;
    q.weights = m.in(p.weights, p.weight_row_bytes * std::size_t(p.n_out));
    q.acts = m.in(p.acts, p.act_row_bytes * std::size_t(e.tier));  // unused rows travel too (poisoned)
    q.out = reinterpret_cast<float*>(m.inout(p.out, sizeof(float) * p.out_stride * std::size_t(e.tier)));
    return q;
  }
};

}  // namespace ordo::test
