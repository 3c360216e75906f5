/// Elementary functions of the reference forward pass in double precision: RMSNorm, sigmoid,
/// softplus, SiLU. Written for reading, not speed (ds4-model.md §3.1).
#pragma once
#include <cmath>

#include "ordo/ref/weights.hpp"

namespace ordo::ref {

inline double sigmoid(double z) { return 1.0 / (1.0 + std::exp(-z)); }

/// softplus(z) = log(1 + e^z); the reference switches to the identity above 20, where the two
/// agree to double precision anyway (the difference is below e^-20 ~ 2e-9 relative).
inline double softplus(double z) { return z > 20.0 ? z : std::log1p(std::exp(z)); }

inline double silu(double z) { return z * sigmoid(z); }

/// y_i = x_i * w_i / sqrt(mean(x^2) + eps).
inline vec rms_norm(const vec& x, const vec& w, double eps) {
  const double inv = 1.0 / std::sqrt(x.squaredNorm() / static_cast<double>(x.size()) + eps);
  return (x * inv).cwiseProduct(w);
}

/// The same without a weight (HC flat state, per-head Q norm).
inline vec rms_norm_plain(const vec& x, double eps) {
  const double inv = 1.0 / std::sqrt(x.squaredNorm() / static_cast<double>(x.size()) + eps);
  return x * inv;
}

}  // namespace ordo::ref
