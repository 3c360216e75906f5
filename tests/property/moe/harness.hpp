/// Test harness of moe for the generic drivers. A case: n_expert experts of random blocks (per-block
/// scales over 2^-4..2^4) for the routed gate/up/down and the shared expert, and a pool of rows,
/// each with x (full-mantissa floats of mixed magnitude and sign), its n_used expert ids (drawn
/// from few experts on most cases, so rows share experts, and from 256 on others; with repeats
/// inside a row on some, so an expert's pairs can exceed a pass of R), its weights, and (down
/// phase) a mid row per slot. The shipped quantize_rows entries quantize x and mid on the same
/// backend. Runs use padded strides everywhere with NaN-poisoned padding and unused rows (ids −1,
/// weights NaN), and sentinel-filled outputs.
/// A slot's bytes: a 4-byte count n of floats, then n floats — gate_up: mid of the row's n_used + 1
/// slots; down: out — then (gate_up) the row's mid_act bytes of every slot and, on cases with
/// probes, g and u of every slot before the clamp (the clamp at ±10 saturates most of the long
/// cases' projections: mid alone would hide a changed sum there).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include ORDO_TUNE_HEADER
#include "../drivers/data.hpp"
#include "../drivers/properties.hpp"
#include "../qmv/dot_oracle.hpp"
#include "../qmv/harness.hpp"
#include "ordo/ops/moe/moe.hpp"
#include "ordo/ops/moe/replay.hpp"
#include "ordo/ops/quantize_rows/quantize_rows.hpp"
#include "ordo/quant/random_block.hpp"

namespace ordo::test {

template <>
struct harness<ops::moe::op> {
  using op = ops::moe::op;
  using entry = registry::entry<op>;
  static constexpr int order_axis = 2;     // (layout, tier, order, phase)
  static constexpr int untiered_rows = 1;  // unused: every moe spec has a tier
  static constexpr std::byte out_byte_sentinel{0xA5};

  struct data {
    std::string layout;
    int n_embd = 0, n_ff = 0, n_expert = 0, n_used = 0;
    float clamp = 10.0f;
    bool probes = true;  // gate_out / up_out set: g and u are outputs too (gate_up)
    // dense weights: routed [n_expert][n_out][row], shared [n_out][row]
    std::vector<std::byte> gate, up, down, shared_gate, shared_up, shared_down;
    std::size_t gu_row = 0, d_row = 0, s_in_row = 0, s_out_row = 0;
    struct row {
      std::vector<float> x;           // [n_embd]
      std::vector<std::int32_t> ids;  // [n_used]
      std::vector<float> weights;     // [n_used]
      std::vector<float> mid;         // [n_used + 1][n_ff]: the down phase's input
    };
    std::vector<row> pool;
  };
  struct layout {
    std::size_t weight_pad = 0;  // bytes per weight row (poisoned)
    std::size_t expert_pad = 0;  // bytes per expert matrix (poisoned)
    std::size_t act_pad = 0;     // bytes per x / mid_act row (poisoned)
    std::size_t route_pad = 0;   // entries per ids / weights row (poisoned)
    std::size_t float_pad = 0;   // floats per mid / out row (sentinel)
  };

  template <class Fn>
  static void with_layout(std::string_view name, Fn&& fn) {
    bool found = false;
    [&]<class... Ls>(meta::type_list<Ls...>) {
      ((Ls::name == name ? (fn.template operator()<Ls>(), found = true) : false), ...);
    }(ops::moe::all_layouts{});
    if (!found) throw std::invalid_argument("unknown moe layout " + std::string(name));
  }
  /// The orders the preset compiles, by name (qmv's: moe's projections are qmv's).
  template <class Fn>
  static void with_order(std::string_view name, Fn&& fn) {
    harness<ops::qmv::op>::with_order(name, std::forward<Fn>(fn));
  }

  template <class F>
  static std::vector<std::byte> random_matrix(quant::splitmix64& rng, int n_out, int k, std::size_t& row_bytes, bool poisoned) {
    const int blocks = k / F::block_elems;
    row_bytes = std::size_t(blocks) * F::block_bytes;
    std::vector<std::byte> m(std::size_t(n_out) * row_bytes, poison);
    if (poisoned) return m;
    for (int r = 0; r < n_out; ++r) {
      auto* row = reinterpret_cast<typename F::block*>(m.data() + std::size_t(r) * row_bytes);
      for (int b = 0; b < blocks; ++b) row[b] = quant::random_block<F>(rng, std::fabs(mixed_float(rng, 4)));
    }
    return m;
  }

  /// A case. `expert_span`: ids come from the first expert_span experts (few: rows share);
  /// `repeats`: a row may name one expert in two slots.
  static data make(std::string_view layout_name, int n_embd, int n_ff, int n_expert, int n_used, int expert_span,
                   bool repeats, int pool, std::uint64_t seed) {
    data d;
    d.layout = std::string(layout_name);
    d.n_embd = n_embd;
    d.n_ff = n_ff;
    d.n_expert = n_expert;
    d.n_used = n_used;
    quant::splitmix64 rng{seed};
    d.clamp = (rng() % 4 == 0) ? 0.0f : 10.0f;
    const int span = std::max(std::min(expert_span, n_expert), repeats ? 1 : n_used);
    std::vector<bool> selected(std::size_t(n_expert), false);
    for (int i = 0; i < pool; ++i) {
      data::row r;
      for (int j = 0; j < n_embd; ++j) r.x.push_back(mixed_float(rng));
      while (int(r.ids.size()) < n_used) {
        const auto e = std::int32_t(rng() % std::uint64_t(span));
        if (repeats || std::find(r.ids.begin(), r.ids.end(), e) == r.ids.end()) r.ids.push_back(e);
      }
      for (int e : r.ids) selected[std::size_t(e)] = true;
      for (int k = 0; k < n_used; ++k) r.weights.push_back(std::fabs(mixed_float(rng, 2)));
      for (int j = 0; j < (n_used + 1) * n_ff; ++j) r.mid.push_back(mixed_float(rng, 3));
      d.pool.push_back(std::move(r));
    }
    // Experts no pool row selects are NaN poison: a kernel that reads one for any row shows it.
    with_layout(layout_name, [&]<class L>() {
      std::size_t row = 0;
      for (int e = 0; e < n_expert; ++e) {
        auto g = random_matrix<typename L::gate_up>(rng, n_ff, n_embd, d.gu_row, !selected[std::size_t(e)]);
        auto u = random_matrix<typename L::gate_up>(rng, n_ff, n_embd, row, !selected[std::size_t(e)]);
        auto dn = random_matrix<typename L::down>(rng, n_embd, n_ff, d.d_row, !selected[std::size_t(e)]);
        d.gate.insert(d.gate.end(), g.begin(), g.end());
        d.up.insert(d.up.end(), u.begin(), u.end());
        d.down.insert(d.down.end(), dn.begin(), dn.end());
      }
      d.shared_gate = random_matrix<typename L::shared>(rng, n_ff, n_embd, d.s_in_row, false);
      d.shared_up = random_matrix<typename L::shared>(rng, n_ff, n_embd, row, false);
      d.shared_down = random_matrix<typename L::shared>(rng, n_embd, n_ff, d.s_out_row, false);
    });
    return d;
  }

  static int chunk_of(std::string_view layout_name) {
    int c = 0;
    with_layout(layout_name, [&]<class L>() { c = ops::moe::mid_chunk<L>; });
    return c;
  }
  static int dot_of(std::string_view layout_name) {
    int c = 0;
    with_layout(layout_name, [&]<class L>() { c = std::max(L::gate_up::dot_elems, L::shared::dot_elems); });
    return c;
  }

  /// Shapes by case, small enough for the CPU executor at every tier (the lane split inside a
  /// projection is qmv's, checked at length by qmv's properties; here the grouping, the passes and
  /// the epilogue are what vary): every third case one reduction has tails (33..40 blocks of 32,
  /// the other dimension one block or chunk), else 1..6 gate/up blocks under 1..2 chunks of n_ff;
  /// 1..2 blocks of 256 for the q8_k layouts; expert counts that force sharing (ids from
  /// n_used..n_used+2 of 8..16 experts) and, every sixth case, 256 experts (little sharing);
  /// n_used 6, or 1..8 on every fourth case; repeats inside a row on every fifth; the probes (g and
  /// u as outputs) on every case but c ≡ 1 mod 4, which runs the engine's way (no probes).
  static data draw(const entry& e, int pool, int c) {
    const int dot = dot_of(e.info.layout), chunk = chunk_of(e.info.layout);
    const bool wide = dot == 32, many = c % 6 == 5;
    int embd_blocks = 1, ff_chunks = 1;
    if (!wide) {
      embd_blocks = detail::uniform(1, 2);
    } else if (c % 3 == 0 && !many) {
      const bool long_gate_up = c % 4 == 0;  // c ≡ 0 mod 12: long gate/up; c ≡ 6 mod 12: long down at the full tier
      embd_blocks = long_gate_up ? detail::uniform(33, 40) : 1;
      ff_chunks = long_gate_up ? 1 : detail::uniform(33, 40);
    } else {
      embd_blocks = detail::uniform(1, 6);
      ff_chunks = detail::uniform(1, 2);
    }
    const int n_used = c % 4 == 3 ? detail::uniform(1, ops::moe::max_used) : 6;
    const int n_expert = many ? 256 : detail::uniform(std::max(n_used, 8), 16);
    const int span = many ? 256 : detail::uniform(n_used, n_used + 2);
    auto d = make(e.info.layout, embd_blocks * dot, ff_chunks * chunk, n_expert, n_used, span, c % 5 == 4, pool,
                  *rc::gen::resize(100, rc::gen::arbitrary<std::uint64_t>()));
    d.probes = c % 4 != 1;
    return d;
  }
  /// P5's cases: the phase's reduction with tails (33..97 blocks of 32), its other dimension short,
  /// no clamp.
  static data tail_data(const entry& e, int pool, std::uint64_t seed) {
    quant::splitmix64 rng{seed};
    int nb = 33 + int(rng() % 65);
    nb += nb % 32 == 0;
    const bool gu = e.info.runs == ops::moe::phase::gate_up;
    const int chunk = chunk_of(e.info.layout);
    // no clamp: a saturated g or u has the same bits in every order, which is not what P5 asks about
    auto d = make(e.info.layout, gu ? nb * 32 : 64, gu ? chunk : nb * 32 / chunk * chunk, 8, 6, 7, false, pool, rng());
    d.clamp = 0.0f;
    return d;
  }

  static layout tight_layout() { return {}; }
  static layout draw_padded_layout() {
    layout l;
    l.weight_pad = std::size_t(detail::uniform(0, 6)) * 4;
    l.expert_pad = std::size_t(detail::uniform(0, 3)) * 16;
    l.act_pad = std::size_t(detail::uniform(0, 4)) * 4;
    l.route_pad = std::size_t(detail::uniform(0, 3));
    l.float_pad = std::size_t(detail::uniform(0, 8));
    return l;
  }

  /// Weight matrices copied at padded strides: n_mat matrices of n_out rows, poisoned padding.
  static std::vector<std::byte> padded(const std::vector<std::byte>& dense, int n_mat, int n_out, std::size_t row,
                                       std::size_t row_pad, std::size_t mat_pad) {
    const std::size_t stride = row + row_pad, mat = std::size_t(n_out) * stride + mat_pad;
    std::vector<std::byte> out(std::size_t(n_mat) * mat, poison);
    for (int m = 0; m < n_mat; ++m)
      for (int r = 0; r < n_out; ++r)
        std::memcpy(out.data() + std::size_t(m) * mat + std::size_t(r) * stride,
                    dense.data() + (std::size_t(m) * std::size_t(n_out) + std::size_t(r)) * row, row);
    return out;
  }

  /// Quantizes `rows` float rows (stride x_stride) by the shipped quantize_rows entry of activation A.
  /// The activation quantization of `rows` rows through the backend. quantize_rows' device mover
  /// moves one row past the live ones (its own harness keeps a guard row there), so every input
  /// and output buffer handed to it here holds a slack row past the live rows (`quantize_slack`).
  static constexpr int quantize_slack = 1;
  static void quantize(const backend& be, std::string_view act, const float* x, std::size_t x_stride, std::byte* out,
                       std::size_t out_row_bytes, int k, int rows) {
    const auto& qe = registry::find_axes<ops::quantize_rows::op>(act);
    be.run(qe, {x, x_stride, out, out_row_bytes, k, rows});
  }

  /// Everything one run needs, owned.
  struct buffers {
    std::vector<std::byte> gate, up, down, sgate, sup, sdown;
    std::vector<std::byte> x_routed, x_shared, mid_act;
    std::vector<std::int32_t> ids;
    std::vector<float> weights;
    std::vector<std::uint32_t> mid, out, gate_probe, up_probe;
    op::problem p{};
  };

  /// Bytes of slot k's mid_act row (the routed down activation, or the shared one for k = n_used).
  static std::vector<std::size_t> slot_act_bytes(const data& d) {
    std::vector<std::size_t> v;
    with_layout(d.layout, [&]<class L>() {
      for (int k = 0; k <= d.n_used; ++k)
        v.push_back(k == d.n_used ? ops::moe::act_row_bytes<typename L::shared::activation>(d.n_ff)
                                  : ops::moe::act_row_bytes<typename L::down::activation>(d.n_ff));
    });
    return v;
  }

  static void build(const backend& be, const entry& e, const data& d, const std::vector<int>& ids, const layout& l,
                    buffers& b) {
    const int n = int(ids.size()), R = e.tier, slots = d.n_used + 1;
    with_layout(d.layout, [&]<class L>() {
      using GU = typename L::gate_up;
      using S = typename L::shared;
      using D = typename L::down;
      auto& p = b.p;
      b.gate = padded(d.gate, d.n_expert, d.n_ff, d.gu_row, l.weight_pad, l.expert_pad);
      b.up = padded(d.up, d.n_expert, d.n_ff, d.gu_row, l.weight_pad, l.expert_pad);
      b.down = padded(d.down, d.n_expert, d.n_embd, d.d_row, l.weight_pad, l.expert_pad);
      b.sgate = padded(d.shared_gate, 1, d.n_ff, d.s_in_row, l.weight_pad, 0);
      b.sup = padded(d.shared_up, 1, d.n_ff, d.s_in_row, l.weight_pad, 0);
      b.sdown = padded(d.shared_down, 1, d.n_embd, d.s_out_row, l.weight_pad, 0);
      p.gate = {b.gate.data(), d.gu_row + l.weight_pad, std::size_t(d.n_ff) * (d.gu_row + l.weight_pad) + l.expert_pad};
      p.up = {b.up.data(), d.gu_row + l.weight_pad, std::size_t(d.n_ff) * (d.gu_row + l.weight_pad) + l.expert_pad};
      p.down = {b.down.data(), d.d_row + l.weight_pad, std::size_t(d.n_embd) * (d.d_row + l.weight_pad) + l.expert_pad};
      p.shared_gate = {b.sgate.data(), d.s_in_row + l.weight_pad};
      p.shared_up = {b.sup.data(), d.s_in_row + l.weight_pad};
      p.shared_down = {b.sdown.data(), d.s_out_row + l.weight_pad};
      // x: the live rows' floats, quantized into poisoned rows up to the tier
      std::vector<float> x(std::size_t(n + quantize_slack) * std::size_t(d.n_embd));
      for (int s = 0; s < n; ++s)
        std::memcpy(x.data() + std::size_t(s) * std::size_t(d.n_embd), d.pool.at(std::size_t(ids[std::size_t(s)])).x.data(),
                    sizeof(float) * std::size_t(d.n_embd));
      p.x_routed_row_bytes = ops::moe::act_row_bytes<typename GU::activation>(d.n_embd) + l.act_pad;
      p.x_shared_row_bytes = ops::moe::act_row_bytes<typename S::activation>(d.n_embd) + l.act_pad;
      b.x_routed.assign(std::size_t(R + quantize_slack) * p.x_routed_row_bytes, poison);
      b.x_shared.assign(std::size_t(R + quantize_slack) * p.x_shared_row_bytes, poison);
      quantize(be, GU::activation::name, x.data(), std::size_t(d.n_embd), b.x_routed.data(), p.x_routed_row_bytes, d.n_embd, n);
      quantize(be, S::activation::name, x.data(), std::size_t(d.n_embd), b.x_shared.data(), p.x_shared_row_bytes, d.n_embd, n);
      p.x_routed = b.x_routed.data();
      p.x_shared = b.x_shared.data();
      // routing: ids and weights of the live rows; padding and unused rows poisoned (id −1, NaN)
      p.route_stride = std::size_t(d.n_used) + l.route_pad;
      b.ids.assign(std::size_t(R) * p.route_stride, -1);
      b.weights.assign(std::size_t(R) * p.route_stride, std::nanf(""));
      for (int s = 0; s < n; ++s)
        for (int k = 0; k < d.n_used; ++k) {
          const auto& r = d.pool.at(std::size_t(ids[std::size_t(s)]));
          b.ids[std::size_t(s) * p.route_stride + std::size_t(k)] = r.ids[std::size_t(k)];
          b.weights[std::size_t(s) * p.route_stride + std::size_t(k)] = r.weights[std::size_t(k)];
        }
      p.expert_ids = b.ids.data();
      p.expert_weights = b.weights.data();
      // workspace: mid (floats, sentinel) and mid_act (gate_up: byte sentinel; down: the quantized pool mid)
      p.mid_stride = std::size_t(d.n_ff) + l.float_pad;
      b.mid.assign(std::size_t(R) * std::size_t(slots) * p.mid_stride, out_sentinel);
      p.mid = reinterpret_cast<float*>(b.mid.data());
      p.mid_act_row_bytes = ops::moe::mid_act_row_bytes<L>(d.n_ff) + l.act_pad;
      if (e.info.runs == ops::moe::phase::gate_up) {
        b.mid_act.assign(std::size_t(R) * std::size_t(slots) * p.mid_act_row_bytes, out_byte_sentinel);
      } else {
        // slot k's rows start k row sizes in: one more row of slots covers its slack row
        b.mid_act.assign(std::size_t(R + quantize_slack + 1) * std::size_t(slots) * p.mid_act_row_bytes, poison);
        const std::size_t per_row = std::size_t(slots) * std::size_t(d.n_ff);
        std::vector<float> mid(std::size_t(n + quantize_slack + 1) * per_row);
        for (int s = 0; s < n; ++s)
          std::memcpy(mid.data() + std::size_t(s) * per_row, d.pool.at(std::size_t(ids[std::size_t(s)])).mid.data(),
                      sizeof(float) * per_row);
        for (int k = 0; k < slots; ++k)
          quantize(be, k == d.n_used ? S::activation::name : D::activation::name, mid.data() + std::size_t(k) * std::size_t(d.n_ff),
                   per_row, b.mid_act.data() + std::size_t(k) * p.mid_act_row_bytes, std::size_t(slots) * p.mid_act_row_bytes,
                   d.n_ff, n);
      }
      p.mid_act = b.mid_act.data();
      p.gate_out = p.up_out = p.partials = nullptr;
      if (e.info.runs == ops::moe::phase::gate_up && d.probes) {
        b.gate_probe.assign(b.mid.size(), out_sentinel);
        b.up_probe.assign(b.mid.size(), out_sentinel);
        p.gate_out = reinterpret_cast<float*>(b.gate_probe.data());
        p.up_out = reinterpret_cast<float*>(b.up_probe.data());
      }
      p.partial_stride = 0;
      p.out_stride = std::size_t(d.n_embd) + l.float_pad;
      b.out.assign(std::size_t(R) * p.out_stride, out_sentinel);
      p.out = reinterpret_cast<float*>(b.out.data());
      p.n_embd = d.n_embd;
      p.n_ff = d.n_ff;
      p.n_expert = d.n_expert;
      p.n_used = d.n_used;
      p.rows = n;
      p.clamp = d.clamp;
    });
  }

  template <class T>
  static void append(std::vector<std::byte>& v, const T* src, std::size_t count) {
    const auto* b = reinterpret_cast<const std::byte*>(src);
    v.insert(v.end(), b, b + count * sizeof(T));
  }

  static run_result run(const backend& be, const entry& e, const data& d, const std::vector<int>& ids, const layout& l) {
    const int n = int(ids.size()), R = e.tier, slots = d.n_used + 1;
    if (n < 1 || n > R) throw std::invalid_argument("run: row count outside the tier");
    buffers b;
    build(be, e, d, ids, l, b);
    const auto& p = b.p;
    be.run(e, p);
    run_result res;
    const auto act_bytes = slot_act_bytes(d);
    if (e.info.runs == ops::moe::phase::gate_up) {
      for (const auto* written : {&b.mid, &b.gate_probe, &b.up_probe})
        for (std::size_t j = 0; j < written->size(); ++j) {
          const std::size_t s = j / (std::size_t(slots) * p.mid_stride), col = j % p.mid_stride;
          if (!(s < std::size_t(n) && col < std::size_t(d.n_ff)) && (*written)[j] != out_sentinel) res.padding_intact = false;
        }
      for (std::size_t j = 0; j < b.mid_act.size(); ++j) {
        const std::size_t row = j / p.mid_act_row_bytes, col = j % p.mid_act_row_bytes;
        const bool live = row / std::size_t(slots) < std::size_t(n) && col < act_bytes[row % std::size_t(slots)];
        if (!live && b.mid_act[j] != out_byte_sentinel) res.padding_intact = false;
      }
      for (std::size_t j = 0; j < b.out.size(); ++j)
        if (b.out[j] != out_sentinel) res.padding_intact = false;  // gate_up does not write out
      for (int s = 0; s < n; ++s) {
        std::vector<std::byte> row;
        const std::uint32_t count = std::uint32_t(slots * d.n_ff);
        append(row, &count, 1);
        for (int k = 0; k < slots; ++k)
          append(row, b.mid.data() + (std::size_t(s) * std::size_t(slots) + std::size_t(k)) * p.mid_stride, std::size_t(d.n_ff));
        for (int k = 0; k < slots; ++k)
          append(row, b.mid_act.data() + (std::size_t(s) * std::size_t(slots) + std::size_t(k)) * p.mid_act_row_bytes,
                 act_bytes[std::size_t(k)]);
        for (const auto* probe : {&b.gate_probe, &b.up_probe})
          if (!probe->empty())
            for (int k = 0; k < slots; ++k)
              append(row, probe->data() + (std::size_t(s) * std::size_t(slots) + std::size_t(k)) * p.mid_stride, std::size_t(d.n_ff));
        res.rows.push_back(std::move(row));
      }
    } else {
      for (std::size_t j = 0; j < b.out.size(); ++j)
        if (!(j / p.out_stride < std::size_t(n) && j % p.out_stride < std::size_t(d.n_embd)) && b.out[j] != out_sentinel)
          res.padding_intact = false;
      for (std::size_t j = 0; j < b.mid.size(); ++j)
        if (b.mid[j] != out_sentinel) res.padding_intact = false;  // down does not write mid
      for (int s = 0; s < n; ++s) {
        std::vector<std::byte> row;
        const std::uint32_t count = std::uint32_t(d.n_embd);
        append(row, &count, 1);
        append(row, b.out.data() + std::size_t(s) * p.out_stride, std::size_t(d.n_embd));
        res.rows.push_back(std::move(row));
      }
    }
    return res;
  }

  /// The row's floats (mid or out), without the count and the mid_act bytes.
  static std::vector<float> outputs(const std::vector<std::byte>& row) {
    std::uint32_t count = 0;
    std::memcpy(&count, row.data(), sizeof count);
    std::vector<float> v(count);
    std::memcpy(v.data(), row.data() + sizeof count, sizeof(float) * count);
    return v;
  }

  /// The replay of pool row `pool_row` alone, through ops::moe::replay with x quantized on the
  /// host by the activation formats' own quantize (the problem's weights and routing are read).
  static std::vector<std::byte> replay(const entry& e, const data& d, int pool_row) {
    std::vector<std::byte> bytes;
    buffers b;
    build(cpu_backend(), e, d, {pool_row}, tight_layout(), b);
    const auto& row = d.pool[std::size_t(pool_row)];
    with_layout(d.layout, [&]<class L>() {
      with_order(e.info.order, [&]<class O>() {
        auto p = b.p;
        const auto xr = ops::moe::replay::act_bytes<typename L::gate_up::activation>(row.x);
        const auto xs = ops::moe::replay::act_bytes<typename L::shared::activation>(row.x);
        p.x_routed = xr.data();
        p.x_shared = xs.data();
        if (e.info.runs == ops::moe::phase::gate_up) {
          const auto r = ops::moe::replay::gate_up_row<L, O>(p, 0);
          const std::uint32_t count = std::uint32_t((d.n_used + 1) * d.n_ff);
          append(bytes, &count, 1);
          for (const auto& m : r.mid) append(bytes, m.data(), m.size());
          for (const auto& m : r.mid_act) append(bytes, m.data(), m.size());
          if (d.probes) {
            for (const auto& g : r.gate) append(bytes, g.data(), g.size());
            for (const auto& u : r.up) append(bytes, u.data(), u.size());
          }
        } else {
          // the down phase's input is the pool row's own mid
          std::vector<std::vector<float>> mid;
          for (int k = 0; k <= d.n_used; ++k)
            mid.emplace_back(row.mid.begin() + std::ptrdiff_t(k) * d.n_ff, row.mid.begin() + std::ptrdiff_t(k + 1) * d.n_ff);
          const auto out = ops::moe::replay::down_row<L, O>(p, 0, ops::moe::replay::quantize_mid<L>(p, mid));
          const std::uint32_t count = std::uint32_t(d.n_embd);
          append(bytes, &count, 1);
          append(bytes, out.data(), out.size());
        }
      });
    });
    return bytes;
  }

  /// The oracle, per phase, in double over the dequantized weights and the dequantized activation
  /// blocks the kernel reads (dot_oracle: each projection's exact value and float bound).
  ///  gate_up: mid = silu(min(g, c))·clamp(u, ±c)·w. With the float g, u within δg, δu of the
  ///    exact ones, |Δmid| <= w·(L·δg·(|u| + δu) + (|silu(g)| + L·δg)·δu) + 4·2^-24·w·(|silu(g)| +
  ///    L·δg)·(|u| + δu), L = max|silu'| = 1.0998 (the clamps are 1-Lipschitz); the 4 ulps cover
  ///    silu_f32 (0.62 ulp) and the two float products (w is the float weight itself, exact).
  ///  down: out = Σ_k P_k with each P_k within its dot bound b_k, then n_used float additions:
  ///    |Δout| <= Σ_k b_k + γ(n_used)·Σ_k (|P_k| + b_k).
  static std::string oracle(const entry& e, const data& d, int pool_row, const std::vector<std::byte>& got_bytes) {
    std::string why;
    const auto got = outputs(got_bytes);
    buffers b;
    build(cpu_backend(), e, d, {pool_row}, tight_layout(), b);
    const auto& p = b.p;
    const auto& row = d.pool[std::size_t(pool_row)];
    with_layout(d.layout, [&]<class L>() {
      with_order(e.info.order, [&]<class O>() {
        const auto estimate = [&]<class F>(const std::byte* mat, std::size_t row_bytes, int r, const std::byte* act, int k) {
          using A = typename F::activation;
          std::vector<float> x(static_cast<std::size_t>(k));
          const auto* blocks = reinterpret_cast<const typename A::block*>(act);
          for (int bl = 0; bl < k / A::block_elems; ++bl) A::dequant(blocks[bl], x.data() + std::size_t(bl) * A::block_elems);
          return dot_oracle<F, O>(reinterpret_cast<const typename F::block*>(mat + std::size_t(r) * row_bytes), x.data(),
                                  k / F::dot_elems);
        };
        using GU = typename L::gate_up;
        using S = typename L::shared;
        using D = typename L::down;
        if (e.info.runs == ops::moe::phase::gate_up) {
          constexpr double lip = 1.0998;
          for (int k = 0; k <= d.n_used && why.empty(); ++k) {
            const bool sh = k == d.n_used;
            const double w = sh ? 1.0 : double(row.weights[std::size_t(k)]);
            const std::size_t off = sh ? 0 : std::size_t(row.ids[std::size_t(k)]) * p.gate.expert_bytes;
            for (int j = 0; j < d.n_ff && why.empty(); ++j) {
              const dot_estimate g =
                  sh ? estimate.template operator()<S>(p.shared_gate.data, p.shared_gate.row_bytes, j, p.x_shared, d.n_embd)
                     : estimate.template operator()<GU>(p.gate.data + off, p.gate.row_bytes, j, p.x_routed, d.n_embd);
              const dot_estimate u =
                  sh ? estimate.template operator()<S>(p.shared_up.data, p.shared_up.row_bytes, j, p.x_shared, d.n_embd)
                     : estimate.template operator()<GU>(p.up.data + off, p.up.row_bytes, j, p.x_routed, d.n_embd);
              double gc = g.exact, uc = u.exact;
              if (d.clamp > 0) {
                gc = std::min(gc, double(d.clamp));
                uc = std::clamp(uc, -double(d.clamp), double(d.clamp));
              }
              const double silu = gc / (1 + std::exp(-gc));
              const double exact = silu * uc * w;
              const double sil_hi = std::fabs(silu) + lip * g.bound, u_hi = std::fabs(uc) + u.bound;
              const double bound = w * (lip * g.bound * u_hi + sil_hi * u.bound) + 4 * 0x1p-24 * w * sil_hi * u_hi + 0x1p-120;
              const float v = got[std::size_t(k) * std::size_t(d.n_ff) + std::size_t(j)];
              if (!(std::fabs(double(v) - exact) <= bound))
                why = "mid[" + std::to_string(k) + "][" + std::to_string(j) + "] = " + std::to_string(v) + ", exact " +
                      std::to_string(exact) + " > bound " + std::to_string(bound);
            }
          }
        } else {
          for (int o = 0; o < d.n_embd && why.empty(); ++o) {
            double exact = 0, bounds = 0, mags = 0;
            for (int k = 0; k <= d.n_used; ++k) {
              const std::byte* act = p.mid_act + std::size_t(k) * p.mid_act_row_bytes;
              const dot_estimate part =
                  k == d.n_used
                      ? estimate.template operator()<S>(p.shared_down.data, p.shared_down.row_bytes, o, act, d.n_ff)
                      : estimate.template operator()<D>(p.down.data + std::size_t(row.ids[std::size_t(k)]) * p.down.expert_bytes,
                                                        p.down.row_bytes, o, act, d.n_ff);
              exact += part.exact;
              bounds += part.bound;
              mags += std::fabs(part.exact) + part.bound;
            }
            const double bound = bounds + gamma(d.n_used) * mags;
            const float v = got[std::size_t(o)];
            if (!(std::fabs(double(v) - exact) <= bound))
              why = "out[" + std::to_string(o) + "] = " + std::to_string(v) + ", exact " + std::to_string(exact) + " > bound " +
                    std::to_string(bound);
          }
        }
      });
    });
    return why;
  }

  static op::problem to_device(const entry& e, const op::problem& p, device_mover& m) {
    auto q = p;
    const std::size_t slots = std::size_t(p.n_used + 1), R = std::size_t(e.tier);
    q.x_routed = m.in(p.x_routed, p.x_routed_row_bytes * R);
    q.x_shared = m.in(p.x_shared, p.x_shared_row_bytes * R);
    q.expert_ids = reinterpret_cast<const std::int32_t*>(m.in(p.expert_ids, sizeof(std::int32_t) * p.route_stride * R));
    q.expert_weights = reinterpret_cast<const float*>(m.in(p.expert_weights, sizeof(float) * p.route_stride * R));
    q.gate.data = m.in(p.gate.data, p.gate.expert_bytes * std::size_t(p.n_expert));
    q.up.data = m.in(p.up.data, p.up.expert_bytes * std::size_t(p.n_expert));
    q.down.data = m.in(p.down.data, p.down.expert_bytes * std::size_t(p.n_expert));
    q.shared_gate.data = m.in(p.shared_gate.data, p.shared_gate.row_bytes * std::size_t(p.n_ff));
    q.shared_up.data = m.in(p.shared_up.data, p.shared_up.row_bytes * std::size_t(p.n_ff));
    q.shared_down.data = m.in(p.shared_down.data, p.shared_down.row_bytes * std::size_t(p.n_embd));
    q.mid = reinterpret_cast<float*>(m.inout(p.mid, sizeof(float) * p.mid_stride * slots * R));
    q.mid_act = m.inout(p.mid_act, p.mid_act_row_bytes * slots * R);
    q.out = reinterpret_cast<float*>(m.inout(p.out, sizeof(float) * p.out_stride * R));
    if (p.gate_out) q.gate_out = reinterpret_cast<float*>(m.inout(p.gate_out, sizeof(float) * p.mid_stride * slots * R));
    if (p.up_out) q.up_out = reinterpret_cast<float*>(m.inout(p.up_out, sizeof(float) * p.mid_stride * slots * R));
    if (p.partials) q.partials = reinterpret_cast<float*>(m.inout(p.partials, sizeof(float) * p.partial_stride * slots * R));
    return q;
  }
};

}  // namespace ordo::test
