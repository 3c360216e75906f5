/// Host-side RoPE angle tables (DESIGN §4: computed once on the host in double, stored as float).
/// θ_k = pos · base^(−2k/n_rot); on compressed layers YaRN blends it with θ_k / factor over the
/// correction range [lo, hi] of pair indices (ds4-model.md §3.4.3; no magnitude scaling). Written
/// from the model spec, not from ordo::ref, so the reference agreement test compares two codes.
#pragma once
#include <algorithm>
#include <cmath>
#include <numbers>

namespace ordo::ops::rope {

struct angles {
  int n_rot = 64;
  double base = 10000.0;            // 10000 on ratio-0 layers, 160000 on compressed ones
  bool yarn = false;                // true on compressed layers
  double factor = 16.0;             // YaRN: interpolated pairs turn 1/factor as fast
  double original_context = 65536.0;
  double beta_fast = 32.0;
  double beta_slow = 1.0;

  /// The angle of pair k at position pos.
  double theta(double pos, int k) const {
    const double n = n_rot;
    const double extrapolated = pos * std::pow(base, -2.0 * k / n);
    if (!yarn) return extrapolated;
    // The pair index at which a dim turns `turns` times over the original context.
    const auto pair_at = [&](double turns) {
      return n * std::log(original_context / (turns * 2.0 * std::numbers::pi)) / (2.0 * std::log(base));
    };
    const double lo = std::max(0.0, std::floor(pair_at(beta_fast)));
    const double hi = std::min(n - 1.0, std::ceil(pair_at(beta_slow)));
    const double keep = 1.0 - std::clamp((k - lo) / std::max(0.001, hi - lo), 0.0, 1.0);  // 1: unscaled
    return extrapolated * (keep + (1.0 - keep) / factor);
  }

  /// Writes the n_rot / 2 pairs (cos θ_k, sin θ_k) of position pos, each rounded once to float.
  void fill(double pos, float* cos_sin) const {
    for (int k = 0; k < n_rot / 2; ++k) {
      const double t = theta(pos, k);
      cos_sin[2 * k] = static_cast<float>(std::cos(t));
      cos_sin[2 * k + 1] = static_cast<float>(std::sin(t));
    }
  }
};

}  // namespace ordo::ops::rope
