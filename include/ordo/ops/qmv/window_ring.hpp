/// A warp's ring of weight-window buffers in shared memory, for the streaming kernels
/// (qmv/int8_dot_streaming.hpp, moe/streaming.hpp): a warp requests the window `Stages − 1` ahead
/// of the one it computes, so that many windows are in flight while it works, with no CTA barrier.
/// Two ways in, the same bytes landing:
///   - bulk copies (sm_90, bulk_copy.hpp) where every window starts and ends on a 16-byte
///     boundary: one lane, one copy a row, completing on the slot's barrier;
///   - cp.async otherwise: every lane 16 bytes at a time from the boundary at or below the window's
///     start (the first block lands at stage offset start & 15), a commit group a window.
/// CUDA device code only.
#pragma once
#include <cstddef>
#include <cstdint>

#include "ordo/gpu/portability.hpp"
#include "ordo/ops/qmv/async_copy.hpp"
#include "ordo/ops/qmv/bulk_copy.hpp"

namespace ordo::ops::qmv {

#if defined(ORDO_GPU_CUDA) && defined(ORDO_DEVICE_PASS)
/// Requests `bytes` weight bytes from `start` into `stage`, from the 16-byte boundary at or below
/// start; never reads past start + bytes. The tensor's data is 16-byte aligned, so the boundary is
/// inside it.
ORDO_DEVICE ORDO_FORCEINLINE void request_window(std::byte* stage, const std::byte* start, int bytes, int lane) {
  const auto* base = reinterpret_cast<const std::byte*>(reinterpret_cast<std::uintptr_t>(start) & ~std::uintptr_t(15));
  const int end = int(start - base) + bytes;
#pragma unroll 1
  for (int c = lane; 16 * c < end; c += 32) {
    const int n = end - 16 * c;
    async_copy::copy16(stage + 16 * c, base + 16 * c, n < 16 ? n : 16);
  }
}

/// The ring: Stages slots of RW rows of SRB bytes (a 16-byte multiple), a barrier a slot (bulk).
template <int Stages, int RW, int SRB>
struct window_ring {
  std::byte* buffers;
  std::uint64_t* bars;  // Stages of them, 8-byte aligned
  bool bulk;            // uniform: whether every window of the launch is in 16-byte granules

  /// Shared-memory bytes of a ring's barriers.
  static constexpr std::size_t barrier_bytes = Stages * sizeof(std::uint64_t);

  /// Every lane of the warp calls it once, before the first request.
  ORDO_DEVICE ORDO_FORCEINLINE void init(int lane) const {
    if constexpr (bulk_copy::available) {
      if (lane == 0)
        for (int s = 0; s < Stages; ++s) bulk_copy::init(bars + s);
      bulk_copy::fence_init();
      __syncwarp();
    }
  }

  ORDO_DEVICE std::byte* slot(int s) const { return buffers + std::size_t(s) * RW * SRB; }

  /// Requests row rr's window (start[rr], bytes[rr]; nullptr: none) into slot s, rows SRB apart;
  /// `any` false: nothing (a request past the walk's end, kept for cp.async's uniform group count).
  ORDO_DEVICE ORDO_FORCEINLINE void request(int s, bool any, const std::byte* const (&start)[RW], const int (&bytes)[RW],
                                            int lane) const {
    if constexpr (bulk_copy::available) {
      if (bulk) {
        if (any && lane == 0) {
          unsigned total = 0;
#pragma unroll
          for (int rr = 0; rr < RW; ++rr) total += start[rr] ? unsigned(bytes[rr]) : 0u;
          bulk_copy::expect(bars + s, total);
#pragma unroll
          for (int rr = 0; rr < RW; ++rr)
            if (start[rr]) bulk_copy::copy(slot(s) + rr * SRB, start[rr], unsigned(bytes[rr]), bars + s);
        }
        return;
      }
    }
    if (any) {
#pragma unroll
      for (int rr = 0; rr < RW; ++rr)
        if (start[rr]) request_window(slot(s) + rr * SRB, start[rr], bytes[rr], lane);
    }
    async_copy::commit();  // an empty group past the end keeps the wait count uniform
  }

  /// Waits until slot s's window (the ring's turn of parity `phase` there: it flips each time the
  /// walk comes round to slot 0) has landed, for every lane.
  ORDO_DEVICE ORDO_FORCEINLINE void wait(int s, unsigned phase) const {
    if constexpr (bulk_copy::available) {
      if (bulk) {
        bulk_copy::wait(bars + s, phase);
        return;
      }
    }
    async_copy::wait<Stages - 1>();  // this lane's copies of the window have landed ...
    __syncwarp();                    // ... and so have every other lane's
  }

  /// At the end: no copy into the ring left in flight (bulk: every requested window was waited for).
  ORDO_DEVICE ORDO_FORCEINLINE void drain() const {
    if (!bulk) async_copy::wait<0>();
  }
};
#endif

}  // namespace ordo::ops::qmv
