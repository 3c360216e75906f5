/// Test harness of hc for the generic drivers (tests/property/drivers): order-sensitive states and
/// sublayer outputs (full-mantissa floats of mixed magnitude and sign), mixes of a magnitude where
/// the sigmoids and the Sinkhorn are mostly not saturated, splits; DS4's n_embd 4096 and odd
/// widths. Runs an entry with chosen pool rows in chosen slots, padded strides, NaN-poisoned input
/// padding and rows past the live count (or zeros there), sentinel-filled outputs, and reports
/// whether anything outside the live outputs of the entry's stage was written (inputs included).
/// The host replay (ops/hc/replay.hpp) and a double-precision oracle with the bounds derived for
/// tests/unit/ops/hc/hc_ref_test.cpp. A slot's bytes: what the stage writes for the row (split:
/// 24 floats; weighted_sum, collapse: n_embd floats; post: 4·n_embd floats).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "../drivers/data.hpp"
#include "../drivers/properties.hpp"
#include "ordo/ops/hc/hc.hpp"
#include "ordo/ops/hc/replay.hpp"

namespace ordo::test {

template <>
struct harness<ops::hc::op> {
  using op = ops::hc::op;
  using entry = registry::entry<op>;
  using stage = ops::hc::stage;
  static constexpr int order_axis = -1;    // every sum has 4 terms in one fixed sequence: no order axis
  static constexpr int untiered_rows = 1;  // unused: every hc spec has a tier
  static constexpr int n_split = ops::hc::n_split, n_streams = ops::hc::n_streams;
  static constexpr float eps = 1e-6f;

  struct data {
    int n_embd = 1;
    std::vector<float> scale, base;          // [3], [24]; the head uses scale[0], base[0..3]
    std::vector<std::vector<float>> mixes;   // pool of 24 mixes (the head reads the first 4)
    std::vector<std::vector<float>> splits;  // pool of split rows (weighted_sum, post inputs)
    std::vector<std::vector<float>> states;  // pool of H rows, 4 * n_embd each
    std::vector<std::vector<float>> f;       // pool of sublayer outputs (post), n_embd each
    int flat() const { return n_streams * n_embd; }
  };

  static std::vector<float> mixed_floats(quant::splitmix64& rng, std::size_t n, int exp_range = 8) {
    std::vector<float> v(n);
    for (auto& x : v) x = mixed_float(rng, exp_range);
    return v;
  }

  /// Mixes in ±[1/4, 8), scales in ±[1/4, 2), bases in ±[1/2, 4): z = mix·s + base is mostly inside
  /// the sigmoid's live range and the Sinkhorn logits are spread. Splits are full-mantissa values in
  /// ±[1/4, 8): post and weighted_sum do no arithmetic that depends on them being a real split.
  static data make(int n_embd, int pool, std::uint64_t seed) {
    data d;
    d.n_embd = n_embd;
    quant::splitmix64 rng{seed};
    for (int k = 0; k < 3; ++k) d.scale.push_back(std::ldexp(mixed_float(rng, 1), -1));
    d.base = mixed_floats(rng, std::size_t(n_split), 1);
    for (int i = 0; i < pool; ++i) {
      d.mixes.push_back(mixed_floats(rng, std::size_t(n_split), 2));
      d.splits.push_back(mixed_floats(rng, std::size_t(n_split), 2));
      d.states.push_back(mixed_floats(rng, std::size_t(d.flat())));
      d.f.push_back(mixed_floats(rng, std::size_t(n_embd)));
    }
    return d;
  }

  /// DS4's n_embd 4096 on a quarter of the cases (full tier and partial), one element on an
  /// eighth, widths 1..299 on three eighths, 300..1099 on the rest (split reads no state: its
  /// width only sizes the untouched buffers).
  static data draw(const entry&, int pool, int c) {
    const int k = c % 8;
    const int n_embd = k == 0 || k == 5 ? 4096 : k == 6 ? 1 : k == 3 || k == 7 ? detail::uniform(300, 1099) : detail::uniform(1, 299);
    return make(n_embd, pool, *rc::gen::resize(100, rc::gen::arbitrary<std::uint64_t>()));
  }

  struct layout {
    std::size_t mix_pad = 0, split_pad = 0, h_pad = 0, x_pad = 0, f_pad = 0, h_new_pad = 0;  // extra floats per row
    bool poison_unused_rows = true;  // input rows past the live count hold NaN (else zeros; stride padding always NaN)
  };
  static layout tight_layout() { return {}; }
  static layout draw_padded_layout() {
    layout l;
    l.mix_pad = std::size_t(detail::uniform(1, 8));
    l.split_pad = std::size_t(detail::uniform(1, 8));
    l.h_pad = std::size_t(detail::uniform(1, 39));
    l.x_pad = std::size_t(detail::uniform(0, 8));
    l.f_pad = std::size_t(detail::uniform(1, 8));
    l.h_new_pad = std::size_t(detail::uniform(0, 8));
    l.poison_unused_rows = detail::uniform(0, 1) == 1;
    return l;
  }

  static bool writes_split(const entry& e) { return e.info.part == stage::split; }
  static bool writes_x(const entry& e) { return e.info.part == stage::weighted_sum || e.info.part == stage::collapse; }
  static bool writes_h(const entry& e) { return e.info.part == stage::post; }

  /// `rows` rows of `stride` floats: live slots hold pool rows, the rest NaN (or zeros when unused
  /// rows are not poisoned; stride padding always NaN).
  static std::vector<float> input_rows(const std::vector<std::vector<float>>& pool, const std::vector<int>& ids, std::size_t rows,
                                       std::size_t width, std::size_t stride, bool poison) {
    std::vector<float> v(rows * stride, std::numeric_limits<float>::quiet_NaN());
    for (std::size_t s = 0; s < ids.size(); ++s) std::memcpy(v.data() + s * stride, pool.at(std::size_t(ids[s])).data(), width * 4);
    if (!poison)
      for (std::size_t s = ids.size(); s < rows; ++s) std::fill_n(v.data() + s * stride, width, 0.0f);
    return v;
  }

  static std::vector<float> sentinel_rows(std::size_t rows, std::size_t stride) {
    const float s = std::bit_cast<float>(out_sentinel);
    return std::vector<float>(rows * stride, s);
  }

  /// The live slots of an output buffer (when `written`), and whether every other float still
  /// holds the sentinel.
  static void collect(const std::vector<float>& buf, std::size_t stride, std::size_t width, std::size_t live, bool written,
                      std::vector<std::vector<std::byte>>& slots, bool& intact) {
    const std::size_t rows = buf.size() / stride;
    for (std::size_t s = 0; s < rows; ++s) {
      const bool mine = written && s < live;
      if (mine) {
        const auto* b = reinterpret_cast<const std::byte*>(buf.data() + s * stride);
        slots.emplace_back(b, b + width * 4);
      }
      for (std::size_t j = mine ? width : 0; j < stride; ++j) intact &= std::bit_cast<std::uint32_t>(buf[s * stride + j]) == out_sentinel;
    }
  }

  static run_result run(const backend& be, const entry& e, const data& d, const std::vector<int>& ids, const layout& l) {
    const int n = int(ids.size());
    if (n < 1 || n > e.tier) throw std::invalid_argument("hc run: row count outside the tier");
    const std::size_t rows = std::size_t(e.tier), flat = std::size_t(d.flat()), embd = std::size_t(d.n_embd);
    const std::size_t ms = n_split + l.mix_pad, ss = n_split + l.split_pad, hs = flat + l.h_pad, xs = embd + l.x_pad,
                      fs = embd + l.f_pad, ns = flat + l.h_new_pad;
    const bool poison = l.poison_unused_rows;
    std::vector<float> mix = input_rows(d.mixes, ids, rows, n_split, ms, poison);
    std::vector<float> split = writes_split(e) ? sentinel_rows(rows, ss) : input_rows(d.splits, ids, rows, n_split, ss, poison);
    std::vector<float> h = input_rows(d.states, ids, rows, flat, hs, poison);
    std::vector<float> f = input_rows(d.f, ids, rows, embd, fs, poison);
    std::vector<float> x = sentinel_rows(rows, xs), h_new = sentinel_rows(rows, ns);
    const std::vector<float> mix_in = mix, split_in = split, h_in = h, f_in = f;
    be.run(e, {mix.data(), ms, d.scale.data(), d.base.data(), split.data(), ss, h.data(), hs, x.data(), xs, f.data(), fs, h_new.data(),
               ns, d.n_embd, n, eps});
    run_result r;
    std::vector<std::vector<std::byte>> xr, hr, sr;
    collect(x, xs, embd, std::size_t(n), writes_x(e), xr, r.padding_intact);
    collect(h_new, ns, flat, std::size_t(n), writes_h(e), hr, r.padding_intact);
    if (writes_split(e)) collect(split, ss, n_split, std::size_t(n), true, sr, r.padding_intact);
    r.rows = writes_split(e) ? sr : writes_h(e) ? hr : xr;
    // Inputs are never written (NaN compares unequal, so compare bytes).
    const auto unchanged = [](const std::vector<float>& a, const std::vector<float>& b) {
      return std::memcmp(a.data(), b.data(), a.size() * 4) == 0;
    };
    r.padding_intact &= unchanged(mix, mix_in) && unchanged(h, h_in) && unchanged(f, f_in);
    if (!writes_split(e)) r.padding_intact &= unchanged(split, split_in);
    return r;
  }

  template <class Floats>
  static std::vector<std::byte> bytes_of(const Floats& v) {
    std::vector<std::byte> b(v.size() * 4);
    std::memcpy(b.data(), v.data(), b.size());
    return b;
  }
  static std::vector<float> floats_of(const std::vector<std::byte>& b) {
    std::vector<float> v(b.size() / 4);
    std::memcpy(v.data(), b.data(), b.size());
    return v;
  }

  static std::vector<std::byte> replay(const entry& e, const data& d, int pool_row) {
    namespace replay = ops::hc::replay;
    const auto i = std::size_t(pool_row);
    switch (e.info.part) {
      case stage::split: return bytes_of(replay::split_row(d.mixes[i].data(), d.scale.data(), d.base.data(), eps));
      case stage::weighted_sum: return bytes_of(replay::collapse(d.states[i].data(), d.n_embd, d.splits[i].data()));
      case stage::post: return bytes_of(replay::post_row(d.states[i].data(), d.n_embd, d.splits[i].data(), d.f[i].data()));
      case stage::collapse: break;
    }
    return bytes_of(replay::head_row(d.mixes[i].data(), d.scale.data(), d.base.data(), eps, d.states[i].data(), d.n_embd));
  }

  // ---- the oracle: ds4-model.md §3.3 in double, with bounds first order in u = 2^-24 (the dropped
  // terms are below (500u)² relative), as tests/unit/ops/hc/hc_ref_test.cpp derives them:
  //   z = mix·s + base rounds twice: |Δz| <= u·|mix·s| + u·|z|.
  //   pre = σ(z) + eps: |σ'| <= 1/4, σ_f32 is within 0.76 ulp <= 1.52u·σ, + eps rounds once:
  //     |Δpre| <= |Δz|/4 + 3u·pre.  post = 2σ(z) (×2 exact): |Δpost| <= |Δz|/2 + 4u·post.
  //   comb: diagonal scalings are isometries of Hilbert's projective metric and the Sinkhorn
  //     normalizations do not expand it (Birkhoff–Hopf), so logits off by at most ΔL move the result
  //     by at most 2·ΔL in that metric; each of the 40 half steps rounds every entry through 3
  //     additions, + eps and a division (5u), the softmax through exp (1.52u), a subtraction, 3
  //     additions, a division and + eps (< 8u together), not expanded either: 2·ΔL + 208u; back to
  //     an entrywise relative bound costs the same factor 2: |ΔM/M| <= 4·ΔL + 420u.
  //   weighted_sum (weights given): 4 fmaf: |Δx_j| <= 5u·Σ_a |pre_a·H_aj| (one u of slack).
  //   collapse: the weights' errors plus the sum's: Σ_a |Δw_a|·|H_aj| + 5u·Σ_a |w_a·H_aj|.
  //   post (split given): 5 fmaf: |ΔH_new| <= 6u·(|post_a·f_j| + Σ_b |M_ab·H_bj|).
  static constexpr double u = 0x1p-24;
  static double sigmoid(double z) { return 1.0 / (1.0 + std::exp(-z)); }
  static double delta_z(double mix, double scale, double base) { return u * std::fabs(mix * scale) + u * std::fabs(mix * scale + base); }

  /// The Sinkhorn of §3.3 on L[a][b] (a + 4b), 20 iterations, in double.
  static std::vector<double> sinkhorn(const double* L) {
    std::vector<double> m(16);
    for (int b = 0; b < 4; ++b) {
      double mx = L[4 * b];
      for (int a = 1; a < 4; ++a) mx = std::max(mx, L[a + 4 * b]);
      double sum = 0;
      for (int a = 0; a < 4; ++a) sum += std::exp(L[a + 4 * b] - mx);
      for (int a = 0; a < 4; ++a) m[std::size_t(a + 4 * b)] = std::exp(L[a + 4 * b] - mx) / sum + double(eps);
    }
    const auto rows = [&] {
      for (int a = 0; a < 4; ++a) {
        const double d = m[std::size_t(a)] + m[std::size_t(a + 4)] + m[std::size_t(a + 8)] + m[std::size_t(a + 12)] + double(eps);
        for (int b = 0; b < 4; ++b) m[std::size_t(a + 4 * b)] /= d;
      }
    };
    const auto cols = [&] {
      for (int b = 0; b < 4; ++b) {
        const double d = m[std::size_t(4 * b)] + m[std::size_t(4 * b + 1)] + m[std::size_t(4 * b + 2)] + m[std::size_t(4 * b + 3)] + double(eps);
        for (int a = 0; a < 4; ++a) m[std::size_t(a + 4 * b)] /= d;
      }
    };
    rows();
    for (int it = 1; it < ops::hc::sinkhorn_iters; ++it) cols(), rows();
    return m;
  }

  static std::string check(const char* what, int k, double got, double want, double bound) {
    if (std::fabs(got - want) <= bound) return {};
    return std::string(what) + " " + std::to_string(k) + ": " + std::to_string(got) + " vs ref " + std::to_string(want) + " (bound " +
           std::to_string(bound) + ")";
  }

  /// x_j against Σ_a w[a]·H[a][j] for double weights w whose float counterparts are within dw.
  static std::string check_collapse(const std::vector<float>& x, const std::vector<float>& h, int n, const double* w, const double* dw) {
    for (int j = 0; j < n; ++j) {
      double want = 0, bound = 0;
      for (int a = 0; a < 4; ++a) {
        const double hv = h[std::size_t(a) * std::size_t(n) + std::size_t(j)];
        want += w[a] * hv;
        bound += dw[a] * std::fabs(hv) + 5 * u * std::fabs(w[a] * hv);
      }
      if (auto why = check("element", j, x[std::size_t(j)], want, bound); !why.empty()) return why;
    }
    return {};
  }

  static std::string oracle(const entry& e, const data& d, int pool_row, const std::vector<std::byte>& got_bytes) {
    const auto got = floats_of(got_bytes);
    const auto i = std::size_t(pool_row);
    const auto& mix = d.mixes[i];
    const auto z = [&](int m, int k) { return double(mix[std::size_t(m)]) * d.scale[std::size_t(k)] + d.base[std::size_t(m)]; };
    if (e.info.part == stage::split) {
      double logits[16], dl = 0;
      for (int a = 0; a < 4; ++a) {
        const double pre = sigmoid(z(a, 0)) + double(eps), post = 2 * sigmoid(z(4 + a, 1));
        if (auto why = check("pre", a, got[std::size_t(a)], pre, delta_z(mix[std::size_t(a)], d.scale[0], d.base[std::size_t(a)]) / 4 + 3 * u * pre);
            !why.empty())
          return why;
        if (auto why = check("post", a, got[std::size_t(4 + a)], post,
                             delta_z(mix[std::size_t(4 + a)], d.scale[1], d.base[std::size_t(4 + a)]) / 2 + 4 * u * post);
            !why.empty())
          return why;
        for (int b = 0; b < 4; ++b) {
          const int m = 8 + a + 4 * b;
          logits[a + 4 * b] = z(m, 2);
          dl = std::max(dl, delta_z(mix[std::size_t(m)], d.scale[2], d.base[std::size_t(m)]));
        }
      }
      const auto comb = sinkhorn(logits);
      for (int c = 0; c < 16; ++c)
        if (auto why = check("comb", c, got[std::size_t(8 + c)], comb[std::size_t(c)], (4 * dl + 420 * u) * comb[std::size_t(c)]); !why.empty())
          return why;
      return {};
    }
    const auto& h = d.states[i];
    const int n = d.n_embd;
    if (e.info.part == stage::weighted_sum) {
      double w[4], dw[4] = {0, 0, 0, 0};
      for (int a = 0; a < 4; ++a) w[a] = d.splits[i][std::size_t(a)];
      return check_collapse(got, h, n, w, dw);
    }
    if (e.info.part == stage::collapse) {
      double w[4], dw[4];
      for (int a = 0; a < 4; ++a) {
        w[a] = sigmoid(z(a, 0)) + double(eps);
        dw[a] = delta_z(mix[std::size_t(a)], d.scale[0], d.base[std::size_t(a)]) / 4 + 3 * u * w[a];
      }
      return check_collapse(got, h, n, w, dw);
    }
    const auto& s = d.splits[i];
    const auto& f = d.f[i];
    for (int a = 0; a < 4; ++a)
      for (int j = 0; j < n; ++j) {
        double want = double(s[std::size_t(4 + a)]) * f[std::size_t(j)], mag = std::fabs(want);
        for (int b = 0; b < 4; ++b) {
          const double t = double(s[std::size_t(8 + a + 4 * b)]) * h[std::size_t(b) * std::size_t(n) + std::size_t(j)];
          want += t;
          mag += std::fabs(t);
        }
        if (auto why = check("stream element", a * n + j, got[std::size_t(a) * std::size_t(n) + std::size_t(j)], want, 6 * u * mag);
            !why.empty())
          return why;
      }
    return {};
  }

  /// Every buffer travels whole (all `tier` rows, padding and poison included) and comes back,
  /// inputs too, so the "inputs never written" check covers the device's copies; pointers the
  /// stage does not use stay null on the device (a kernel that read one would fault, not pass).
  static op::problem to_device(const entry& e, const op::problem& p, device_mover& m) {
    const std::size_t rows = std::size_t(e.tier);
    const bool split = e.info.part == stage::split, mixes = split || e.info.part == stage::collapse;
    const auto move = [&](const float* host, std::size_t floats) {
      return reinterpret_cast<float*>(m.inout(const_cast<float*>(host), 4 * floats));
    };
    auto q = p;
    q.mix = mixes ? move(p.mix, rows * p.mix_stride) : nullptr;
    q.scale = mixes ? move(p.scale, split ? 3 : 1) : nullptr;
    q.base = mixes ? move(p.base, std::size_t(split ? n_split : ops::hc::n_head_mix)) : nullptr;
    q.split = e.info.part != stage::collapse ? move(p.split, rows * p.split_stride) : nullptr;
    q.h = !split ? move(p.h, rows * p.h_stride) : nullptr;
    q.x = writes_x(e) ? move(p.x, rows * p.x_stride) : nullptr;
    q.f = writes_h(e) ? move(p.f, rows * p.f_stride) : nullptr;
    q.h_new = writes_h(e) ? move(p.h_new, rows * p.h_new_stride) : nullptr;
    return q;
  }
};

}  // namespace ordo::test
