/// The host replay of compressor for P2, written from ds4-model.md §3.4.6 and not from body.hpp:
/// store as a copy and one addition per score; emit as the list of the window's (score, value)
/// entries of each column, a max, then e, den and num in entry order, then the other families'
/// own replays of the later steps (rmsnorm's weighted norm in the named order, rope's forward
/// rotation, kv_store's double-precision FP8 round trip or the indexer's Hadamard + FP4 replay),
/// none of which shares code with the body.
#pragma once
#include <math.h>

#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include "ordo/numeric/math.hpp"
#include "ordo/ops/compressor/problem.hpp"
#include "ordo/ops/indexer/replay.hpp"
#include "ordo/ops/kv_store/replay.hpp"
#include "ordo/ops/rmsnorm/replay.hpp"
#include "ordo/ops/rope/replay.hpp"

namespace ordo::ops::compressor::replay {

/// A ring held as rows of positions: row(p) is the kv / score row of position p.
struct ring_view {
  const float* kv;
  const float* score;
  std::size_t stride;
  std::int64_t rows;
  std::size_t at(std::int64_t p, int col) const {
    return std::size_t(((p % rows) + rows) % rows) * stride + std::size_t(col);
  }
};

/// The kv and score rows a store writes for one position: the kv copied, the score plus the APE
/// row of the position (one float addition each).
struct stored_row {
  std::vector<float> kv, score;
};
inline stored_row store(const float* kv, const float* score, const float* ape_row, int width) {
  stored_row r{std::vector<float>(kv, kv + width), std::vector<float>(score, score + width)};
  for (int j = 0; j < width; ++j) r.score[std::size_t(j)] += ape_row[j];
  return r;
}

/// The emitted row of the window that ends at position p: attention rows end with kv_store's FP8
/// replay, indexer rows with the indexer's Hadamard + FP4 replay of the whole row.
inline std::vector<float> emit(ratio geometry, std::string_view order, const ring_view& ring, std::int64_t p, int d,
                               const float* norm, float eps, const float* cos_sin, int n_rot,
                               emitted rows = emitted::attention) {
  std::vector<float> pooled(static_cast<std::size_t>(d));
  for (int j = 0; j < d; ++j) {
    std::vector<float> s, v;
    const auto add = [&](std::int64_t pos, int col) {
      s.push_back(ring.score[ring.at(pos, col)]);
      v.push_back(ring.kv[ring.at(pos, col)]);
    };
    if (geometry == ratio::r4) {
      for (std::int64_t q = p - 7; q <= p - 4; ++q) add(q, j);      // lane A, previous window
      for (std::int64_t q = p - 3; q <= p; ++q) add(q, d + j);      // lane B, this window
    } else {
      for (std::int64_t q = p - 127; q <= p; ++q) add(q, j);
    }
    float mx = -std::numeric_limits<float>::infinity();
    for (float x : s) mx = x > mx ? x : mx;
    if (mx == -std::numeric_limits<float>::infinity()) continue;  // pooled[j] stays 0
    float den = 0.0f, num = 0.0f;
    for (std::size_t t = 0; t < s.size(); ++t) {
      const float e = numeric::exp_f32(s[t] - mx);
      den += e;
      num = fmaf(e, v[t], num);
    }
    pooled[std::size_t(j)] = num / den;
  }
  const auto normed = rmsnorm::replay::row(order, pooled.data(), 1, d, norm, eps, false).y;
  std::vector<float> out = rope::replay::row(normed.data(), cos_sin, 1, d, n_rot, false);
  if (rows == emitted::indexer) return indexer::replay::hadamard_fp4(out.data(), d);
  const auto fp8 = kv_store::replay::fp8_values(out.data(), d - n_rot);
  for (int e = 0; e < d - n_rot; ++e) out[std::size_t(e)] = float(fp8[std::size_t(e)]);
  return out;
}

}  // namespace ordo::ops::compressor::replay
