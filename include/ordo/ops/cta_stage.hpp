/// Staging from global into shared memory with a group of threads (a CTA or one warp): every
/// thread loads its next `Batch` pieces into registers before it stores any, so one thread has
/// `Batch` independent loads in flight and the group moves Batch × threads pieces per memory
/// round trip (a loop that stores each piece right after loading it waits one round trip per
/// piece). cta_stage_floats copies a run as it is; stage_words_padded spreads it into padded runs
/// so lanes reading one run each do not share banks. A copy moves bits: where it happens never
/// changes what a reduction over the copy adds. Device code only.
#pragma once
#include <cstddef>
#include <cstdint>

#include "ordo/gpu/portability.hpp"

namespace ordo::ops {

#if defined(ORDO_DEVICE_PASS)
/// dst[j] = src[j] for j < n, thread t of `threads` taking j = t, t + threads, … (coalesced).
template <int Batch = 8>
ORDO_DEVICE ORDO_FORCEINLINE void cta_stage_floats(float* dst, const float* src, int n, int t, int threads) {
#pragma unroll 1
  for (int j0 = t; j0 < n; j0 += Batch * threads) {
    float v[Batch];
#pragma unroll
    for (int u = 0; u < Batch; ++u) v[u] = j0 + u * threads < n ? src[j0 + u * threads] : 0.0f;
#pragma unroll
    for (int u = 0; u < Batch; ++u)
      if (j0 + u * threads < n) dst[j0 + u * threads] = v[u];
  }
}

/// Copies n_words 32-bit words from src into runs of `Run` words placed `Padded` words apart in
/// dst (word j goes to (j / Run) · Padded + j % Run): an odd Padded puts the same word of
/// consecutive runs in different shared-memory banks, so 32 lanes each reading their own run
/// do not conflict. Thread t of `threads` loads 16-byte pieces when src is 16-byte aligned and
/// Run and n_words are multiples of 4 (a piece never straddles two runs), else single words;
/// the branch is uniform across the participating threads.
template <int Run, int Padded, int Batch = 8>
ORDO_DEVICE ORDO_FORCEINLINE void stage_words_padded(std::uint32_t* dst, const std::byte* src, int n_words, int t,
                                                     int threads) {
  if ((reinterpret_cast<std::uintptr_t>(src) & 15) == 0 && Run % 4 == 0 && n_words % 4 == 0) {
    const auto* s = reinterpret_cast<const uint4*>(src);
    const int n = n_words / 4;
#pragma unroll 1
    for (int j0 = t; j0 < n; j0 += Batch * threads) {
      uint4 v[Batch];
#pragma unroll
      for (int u = 0; u < Batch; ++u)
        if (j0 + u * threads < n) v[u] = s[j0 + u * threads];
#pragma unroll
      for (int u = 0; u < Batch; ++u) {
        const int j = 4 * (j0 + u * threads);
        if (j < n_words) {
          std::uint32_t* d = dst + (j / Run) * Padded + j % Run;
          d[0] = v[u].x;
          d[1] = v[u].y;
          d[2] = v[u].z;
          d[3] = v[u].w;
        }
      }
    }
  } else {
    const auto* s = reinterpret_cast<const std::uint32_t*>(src);
#pragma unroll 1
    for (int j0 = t; j0 < n_words; j0 += Batch * threads) {
      std::uint32_t v[Batch];
#pragma unroll
      for (int u = 0; u < Batch; ++u) v[u] = j0 + u * threads < n_words ? s[j0 + u * threads] : 0u;
#pragma unroll
      for (int u = 0; u < Batch; ++u) {
        const int j = j0 + u * threads;
        if (j < n_words) dst[(j / Run) * Padded + j % Run] = v[u];
      }
    }
  }
}
#endif

}  // namespace ordo::ops
