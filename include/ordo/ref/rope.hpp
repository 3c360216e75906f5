/// Tail RoPE of the reference: only the last n_rot dims of a head rotate, in adjacent pairs
/// (GPT-J / ggml mode 0). Ratio-0 layers use plain RoPE with rope_freq_base; compressed layers use
/// compress_rope_freq_base with YaRN and no magnitude scaling (ds4-model.md §3.4.3). Angles are
/// computed in double for every call (the reference is not a kernel; no tables).
#pragma once
#include <algorithm>
#include <cmath>
#include <numbers>

#include "ordo/ref/config.hpp"
#include "ordo/ref/weights.hpp"

namespace ordo::ref {

enum class rope_direction { forward, inverse };

struct rope_params {
  int n_rot = 64;
  double base = 10000.0;
  bool yarn = false;
  yarn_params y;
};

/// The RoPE of a layer: YaRN exactly when the layer compresses (ratio != 0).
inline rope_params layer_rope(const config& c, int ratio) {
  if (ratio == 0) return {.n_rot = static_cast<int>(c.n_rot), .base = c.rope_freq_base, .yarn = false, .y = yarn_of(c)};
  return {.n_rot = static_cast<int>(c.n_rot), .base = c.compress_rope_freq_base, .yarn = true, .y = yarn_of(c)};
}

/// Angle of pair k at position pos.
inline double rope_angle(const rope_params& p, double pos, int k) {
  const double n = p.n_rot;
  const double theta_extrap = pos * std::pow(p.base, -2.0 * k / n);
  if (!p.yarn) return theta_extrap;
  // YaRN's correction range: dims rotating fewer than beta_fast (more than beta_slow) times
  // over the original context are extrapolated (interpolated); a linear ramp between.
  auto corr = [&](double n_turns) {
    return n * std::log(p.y.original_context / (n_turns * 2.0 * std::numbers::pi)) / (2.0 * std::log(p.base));
  };
  const double lo = std::max(0.0, std::floor(corr(p.y.beta_fast)));
  const double hi = std::min(n - 1.0, std::ceil(corr(p.y.beta_slow)));
  const double ramp = 1.0 - std::clamp((k - lo) / std::max(0.001, hi - lo), 0.0, 1.0);
#ifdef ORDO_MUTANT_YARN_FACTOR_PLUS_ONE  // mutation-check test targets only: factor 16 -> 17
  const double fs = 1.0 / (p.y.factor + 1.0);
#else
  const double fs = 1.0 / p.y.factor;
#endif
  return theta_extrap * (fs * (1.0 - ramp) + ramp);
}

/// Rotates dims [offset + head_width - n_rot, offset + head_width) of v in adjacent pairs.
inline void rope_tail(double* head, int head_width, const rope_params& p, double pos, rope_direction dir) {
  double* t = head + head_width - p.n_rot;
  for (int k = 0; k < p.n_rot / 2; ++k) {
    const double th = rope_angle(p, pos, k);
    const double c = std::cos(th);
    const double s = dir == rope_direction::forward ? std::sin(th) : -std::sin(th);
    const double x0 = t[2 * k], x1 = t[2 * k + 1];
    t[2 * k] = x0 * c - x1 * s;
    t[2 * k + 1] = x0 * s + x1 * c;
  }
}

/// Applies rope_tail to each of the n_heads consecutive heads of width head_width in v.
inline void rope_heads(vec& v, int head_width, const rope_params& p, double pos, rope_direction dir) {
  const int n_heads = static_cast<int>(v.size()) / head_width;
  for (int h = 0; h < n_heads; ++h) rope_tail(v.data() + h * head_width, head_width, p, pos, dir);
}

}  // namespace ordo::ref
