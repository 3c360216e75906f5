// moe against the double-precision reference at DS4 dims (n_embd 4096, n_ff_exp 2048, 256 experts,
// 6 used, clamp 10): the routing is ref::route on a hash layer (tid2eid rows chosen so the rows
// share experts), the expert math is ref::moe_forward's (ref::clamped_swiglu, the weight on mid,
// routed sum then shared), evaluated row by row from the dequantized weights (a double copy of one
// DS4 expert matrix is 64 MiB). The engine's path: quantize_rows of x, moe gate_up, moe down.
// The 3-D routed tensors are the real 256-expert shape, mapped lazily: only the selected experts'
// pages are written.
//
// The bound, per output, from float32 vs double plus the two activation quantizations the op
// defines (the reference does not quantize activations):
//  - x: |x̂_j − x_j| <= q_j = amax(block of x_j)/127 (a full quantization step: ≥ half a step plus
//    the f16 rounding of the q8_32 scale, 2^-11 of amax);
//  - g, u: δ = Σ_j |W_j|·q_j + the float bound of dot_oracle (qmv's derivation) at x̂;
//  - mid = silu(min(g,c))·clamp(u,±c)·w: w·(L·δg·(|u|+δu) + (|s|+L·δg)·δu) + 5 ulps of
//    w·(|s|+L·δg)·(|u|+δu), L = max|silu'| = 1.0998 (silu_f32 0.62 ulp, two products, w to float);
//  - mid quantization: + amax(block of |mid| + δmid)/127 per element;
//  - down: Σ_j |D_j|·δmid̂_j + dot_oracle's float bound at the quantized mid; the 7-term sum:
//    Σ_k b_k + γ(6)·Σ_k (|P_k| + b_k).
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cmath>
#include <cstring>
#include <set>

#include "gtest_family.hpp"
#include "ordo/ref/moe.hpp"

namespace {

using namespace ordo;
using namespace ordo::test;
using H = harness<ops::moe::op>;

/// A lazily committed zero-filled region (the 256-expert tensors; untouched experts cost nothing).
struct lazy_bytes {
  std::byte* data = nullptr;
  std::size_t size = 0;
  explicit lazy_bytes(std::size_t n) : size(n) {
    void* p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("mmap of the expert tensor failed");
    data = static_cast<std::byte*>(p);
  }
  ~lazy_bytes() { munmap(data, size); }
  lazy_bytes(const lazy_bytes&) = delete;
  lazy_bytes& operator=(const lazy_bytes&) = delete;
};

template <class F>
void fill_matrix(quant::splitmix64& rng, std::byte* m, int n_out, std::size_t row_bytes, int k, double scale) {
  for (int r = 0; r < n_out; ++r) {
    auto* row = reinterpret_cast<typename F::block*>(m + std::size_t(r) * row_bytes);
    for (int b = 0; b < k / F::block_elems; ++b)
      row[b] = quant::random_block<F>(rng, float(scale * (1.0 + double(rng() % 1024) / 1024.0)));
  }
}

template <class F>
std::vector<double> dequant_row(const std::byte* m, std::size_t row_bytes, int r, int k) {
  std::vector<float> f(static_cast<std::size_t>(k));
  const auto* row = reinterpret_cast<const typename F::block*>(m + std::size_t(r) * row_bytes);
  for (int b = 0; b < k / F::block_elems; ++b) F::dequant(row[b], f.data() + std::size_t(b) * F::block_elems);
  return {f.begin(), f.end()};
}

/// Per-element quantization steps of a vector in activation blocks of n elements: amax/127.
std::vector<double> steps_of(const std::vector<double>& v, int n) {
  std::vector<double> s(v.size());
  for (std::size_t b = 0; b < v.size(); b += std::size_t(n)) {
    double amax = 0;
    for (std::size_t j = b; j < b + std::size_t(n); ++j) amax = std::max(amax, std::fabs(v[j]));
    for (std::size_t j = b; j < b + std::size_t(n); ++j) s[j] = amax / 127.0;
  }
  return s;
}

template <class L>
void agree_at_ds4_dims(const char* spec_layout, std::uint64_t seed) {
  using GU = typename L::gate_up;
  using D = typename L::down;
  using S = typename L::shared;
  using O = order::lane_strided;
  constexpr int n_embd = 4096, n_ff = 2048, n_expert = 256, n_used = 6, rows = 3;
  constexpr double lip = 1.0998;
  ref::config c;
  c.n_embd = n_embd;
  c.n_ff_exp = n_ff;
  c.n_expert = n_expert;
  c.n_expert_used = n_used;
  c.hash_layer_count = 1;
  c.swiglu_clamp_exp.assign(c.n_layer, 10.0f);
  quant::splitmix64 rng{seed};

  // hash routing: three tokens whose tid2eid rows overlap (experts from a pool of 9)
  ref::layer_weights w;
  w.router = ref::mat(n_expert, n_embd);
  for (Eigen::Index i = 0; i < w.router.size(); ++i) w.router.data()[i] = double(mixed_float(rng, 2)) / 64.0;
  const int pool_ids[9] = {3, 17, 42, 100, 101, 128, 200, 254, 255};
  for (int t = 0; t < rows; ++t) {
    std::vector<std::int32_t> ids;
    while (int(ids.size()) < n_used) {
      const int e = pool_ids[rng() % 9];
      if (std::find(ids.begin(), ids.end(), e) == ids.end()) ids.push_back(e);
    }
    w.tid2eid.push_back(ids);
  }
  std::vector<ref::vec> x(rows, ref::vec(n_embd));
  std::vector<ref::routing> route;
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < n_embd; ++j) x[std::size_t(i)][j] = double(mixed_float(rng, 2));
    route.push_back(ref::route(w, c, 0, x[std::size_t(i)], i));
  }

  // weights: the 256-expert tensors, the selected experts filled; fan-in scaled like a model's
  const std::size_t gu_row = std::size_t(n_embd / GU::block_elems) * GU::block_bytes;
  const std::size_t d_row = std::size_t(n_ff / D::block_elems) * D::block_bytes;
  const std::size_t s_in = std::size_t(n_embd / S::block_elems) * S::block_bytes, s_out = std::size_t(n_ff / S::block_elems) * S::block_bytes;
  lazy_bytes gate(gu_row * n_ff * n_expert), up(gu_row * n_ff * n_expert), down(d_row * n_embd * n_expert);
  std::vector<std::byte> sgate(s_in * n_ff), sup(s_in * n_ff), sdown(s_out * n_embd);
  std::set<int> used;
  for (const auto& r : route) used.insert(r.experts.begin(), r.experts.end());
  for (int e : used) {
    fill_matrix<GU>(rng, gate.data + std::size_t(e) * gu_row * n_ff, n_ff, gu_row, n_embd, 1.0 / 64);
    fill_matrix<GU>(rng, up.data + std::size_t(e) * gu_row * n_ff, n_ff, gu_row, n_embd, 1.0 / 64);
    fill_matrix<D>(rng, down.data + std::size_t(e) * d_row * n_embd, n_embd, d_row, n_ff, 1.0 / 45);
  }
  fill_matrix<S>(rng, sgate.data(), n_ff, s_in, n_embd, 1.0 / 64);
  fill_matrix<S>(rng, sup.data(), n_ff, s_in, n_embd, 1.0 / 64);
  fill_matrix<S>(rng, sdown.data(), n_embd, s_out, n_ff, 1.0 / 45);

  // the engine's path
  std::vector<float> xf(std::size_t(rows) * n_embd);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < n_embd; ++j) xf[std::size_t(i) * n_embd + std::size_t(j)] = float(x[std::size_t(i)][j]);
  ops::moe::problem p{};
  const std::size_t xr_row = ops::moe::act_row_bytes<typename GU::activation>(n_embd), xs_row = ops::moe::act_row_bytes<typename S::activation>(n_embd);
  std::vector<std::byte> xr(rows * xr_row), xs(rows * xs_row);
  H::quantize(cpu_backend(), GU::activation::name, xf.data(), n_embd, xr.data(), xr_row, n_embd, rows);
  H::quantize(cpu_backend(), S::activation::name, xf.data(), n_embd, xs.data(), xs_row, n_embd, rows);
  std::vector<std::int32_t> ids(rows * n_used);
  std::vector<float> weights(rows * n_used);
  for (int i = 0; i < rows; ++i)
    for (int k = 0; k < n_used; ++k) {
      ids[std::size_t(i * n_used + k)] = route[std::size_t(i)].experts[std::size_t(k)];
      weights[std::size_t(i * n_used + k)] = float(route[std::size_t(i)].weight[std::size_t(k)]);
    }
  const std::size_t slots = n_used + 1, mid_act_row = ops::moe::mid_act_row_bytes<L>(n_ff);
  std::vector<float> mid(rows * slots * n_ff), out(rows * std::size_t(n_embd));
  std::vector<std::byte> mid_act(rows * slots * mid_act_row);
  p.x_routed = xr.data();
  p.x_routed_row_bytes = xr_row;
  p.x_shared = xs.data();
  p.x_shared_row_bytes = xs_row;
  p.expert_ids = ids.data();
  p.expert_weights = weights.data();
  p.route_stride = n_used;
  p.gate = {gate.data, gu_row, gu_row * n_ff};
  p.up = {up.data, gu_row, gu_row * n_ff};
  p.down = {down.data, d_row, d_row * n_embd};
  p.shared_gate = {sgate.data(), s_in};
  p.shared_up = {sup.data(), s_in};
  p.shared_down = {sdown.data(), s_out};
  p.mid = mid.data();
  p.mid_stride = n_ff;
  p.mid_act = mid_act.data();
  p.mid_act_row_bytes = mid_act_row;
  p.out = out.data();
  p.out_stride = n_embd;
  p.n_embd = n_embd;
  p.n_ff = n_ff;
  p.n_expert = n_expert;
  p.n_used = n_used;
  p.rows = rows;
  p.clamp = 10.0f;
  const std::string base = std::string("moe.") + spec_layout + ".r4.ls32.";
  registry::find<ops::moe::op>(base + "gate_up").run_cpu(p);
  registry::find<ops::moe::op>(base + "down").run_cpu(p);

  // the reference and the bound
  double worst = 0;  // max |diff| / bound
  for (int i = 0; i < rows; ++i) {
    const auto& xi = x[std::size_t(i)];
    std::vector<double> xv(xi.data(), xi.data() + n_embd);
    std::vector<double> ref_out(n_embd, 0.0), bound(n_embd, 0.0), mag(n_embd, 0.0);
    for (int k = 0; k <= n_used; ++k) {
      const bool sh = k == n_used;
      const int e = sh ? -1 : route[std::size_t(i)].experts[std::size_t(k)];
      const double wk = sh ? 1.0 : route[std::size_t(i)].weight[std::size_t(k)];
      const int in_block = sh ? S::activation::block_elems : GU::activation::block_elems;
      const auto qx = steps_of(xv, in_block);
      // x̂ (the blocks the kernel read), for dot_oracle's float bound
      std::vector<float> xhat(n_embd);
      {
        using A_sh = typename S::activation;
        using A_gu = typename GU::activation;
        if (sh) {
          const auto* bl = reinterpret_cast<const typename A_sh::block*>(xs.data() + std::size_t(i) * xs_row);
          for (int b = 0; b < n_embd / A_sh::block_elems; ++b) A_sh::dequant(bl[b], xhat.data() + b * A_sh::block_elems);
        } else {
          const auto* bl = reinterpret_cast<const typename A_gu::block*>(xr.data() + std::size_t(i) * xr_row);
          for (int b = 0; b < n_embd / A_gu::block_elems; ++b) A_gu::dequant(bl[b], xhat.data() + b * A_gu::block_elems);
        }
      }
      ref::vec g(n_ff), u(n_ff);
      std::vector<double> dg(n_ff), du(n_ff);
      for (int r = 0; r < n_ff; ++r) {
        auto one = [&]<class F>(const std::byte* m, std::size_t rb, double& val, double& delta) {
          const auto wr = dequant_row<F>(m, rb, r, n_embd);
          double v = 0, q = 0;
          for (int j = 0; j < n_embd; ++j) {
            v += wr[std::size_t(j)] * xv[std::size_t(j)];
            q += std::fabs(wr[std::size_t(j)]) * qx[std::size_t(j)];
          }
          val = v;
          delta = q + dot_oracle<F, O>(reinterpret_cast<const typename F::block*>(m + std::size_t(r) * rb), xhat.data(),
                                       n_embd / F::dot_elems).bound;
        };
        if (sh) {
          one.template operator()<S>(sgate.data(), s_in, g[r], dg[std::size_t(r)]);
          one.template operator()<S>(sup.data(), s_in, u[r], du[std::size_t(r)]);
        } else {
          one.template operator()<GU>(gate.data + std::size_t(e) * gu_row * n_ff, gu_row, g[r], dg[std::size_t(r)]);
          one.template operator()<GU>(up.data + std::size_t(e) * gu_row * n_ff, gu_row, u[r], du[std::size_t(r)]);
        }
      }
      const ref::vec m = ref::clamped_swiglu(g, u, 10.0) * wk;  // the reference's mid
      std::vector<double> dm(n_ff), mhi(n_ff);
      for (int r = 0; r < n_ff; ++r) {
        const double gc = std::min(g[r], 10.0), uc = std::clamp(u[r], -10.0, 10.0);
        const double s = std::fabs(gc / (1 + std::exp(-gc))) + lip * dg[std::size_t(r)], uh = std::fabs(uc) + du[std::size_t(r)];
        dm[std::size_t(r)] = wk * (lip * dg[std::size_t(r)] * uh + s * du[std::size_t(r)]) + 5 * 0x1p-24 * wk * s * uh;
        mhi[std::size_t(r)] = std::fabs(m[r]) + dm[std::size_t(r)];
      }
      const int mid_block = sh ? S::activation::block_elems : D::activation::block_elems;
      const auto qm = steps_of(mhi, mid_block);
      std::vector<float> mhat(n_ff);
      const std::byte* ma = mid_act.data() + (std::size_t(i) * slots + std::size_t(k)) * mid_act_row;
      auto deq_mid = [&]<class A>() {
        const auto* bl = reinterpret_cast<const typename A::block*>(ma);
        for (int b = 0; b < n_ff / A::block_elems; ++b) A::dequant(bl[b], mhat.data() + b * A::block_elems);
      };
      if (sh) deq_mid.template operator()<typename S::activation>();
      else deq_mid.template operator()<typename D::activation>();
      for (int o = 0; o < n_embd; ++o) {
        auto one = [&]<class F>(const std::byte* mat, std::size_t rb) {
          const auto dr = dequant_row<F>(mat, rb, o, n_ff);
          double v = 0, q = 0;
          for (int j = 0; j < n_ff; ++j) {
            v += dr[std::size_t(j)] * m[j];
            q += std::fabs(dr[std::size_t(j)]) * (dm[std::size_t(j)] + qm[std::size_t(j)]);
          }
          const double b = q + dot_oracle<F, O>(reinterpret_cast<const typename F::block*>(mat + std::size_t(o) * rb), mhat.data(),
                                                n_ff / F::dot_elems).bound;
          ref_out[std::size_t(o)] += v;
          bound[std::size_t(o)] += b;
          mag[std::size_t(o)] += std::fabs(v) + b;
        };
        if (sh) one.template operator()<S>(sdown.data(), s_out);
        else one.template operator()<D>(down.data + std::size_t(e) * d_row * n_embd, d_row);
      }
    }
    for (int o = 0; o < n_embd; ++o) {
      const double b = bound[std::size_t(o)] + gamma(n_used) * mag[std::size_t(o)];
      const double diff = std::fabs(double(out[std::size_t(i) * n_embd + std::size_t(o)]) - ref_out[std::size_t(o)]);
      ASSERT_LE(diff, b) << spec_layout << " row " << i << " out[" << o << "] = " << out[std::size_t(i) * n_embd + std::size_t(o)]
                         << ", reference " << ref_out[std::size_t(o)];
      worst = std::max(worst, diff / b);
    }
  }
  std::printf("%s: every output within its bound (max |diff|/bound %.3g), %zu distinct experts for %d rows\n", spec_layout,
              worst, used.size(), rows);
  EXPECT_LT(used.size(), std::size_t(rows * n_used)) << "the rows shared no expert";
}

TEST(MoeReference, AgreesWithRefMoeAtDs4DimsQ2Layout) { agree_at_ds4_dims<ops::moe::q2_layout>("q2", 11); }
TEST(MoeReference, AgreesWithRefMoeAtDs4DimsMxfp4Layout) { agree_at_ds4_dims<ops::moe::mxfp4_layout>("mxfp4", 12); }

}  // namespace
