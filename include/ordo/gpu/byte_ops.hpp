/// Byte-level register operations with one meaning on the host and on every device, so decoders
/// built from them run (and are unit-tested) on the CPU bit for bit as on the GPU.
///   byte_perm(a, b, c): PTX `prmt.b32` in its generic mode. Result byte i is byte (n & 7) of the
///     8 bytes {b, a} (a's bytes 0..3, then b's) for n = nibble i of c; where n's bit 3 is set the
///     byte is replaced by its sign (0x00 or 0xff). CUDA's __byte_perm clears bit 3 first (an extra
///     AND); the decoders use the sign mode on purpose.
///   funnel_shift_r(lo, hi, s): bits s .. s + 31 of the 64-bit {hi, lo} (s < 32).
///   popcount(x): the number of set bits of x.
#pragma once
#include <bit>
#include <cstdint>

#include "ordo/gpu/portability.hpp"

namespace ordo::gpu {

ORDO_HD ORDO_FORCEINLINE std::uint32_t byte_perm(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
#if defined(ORDO_DEVICE_PASS) && defined(ORDO_GPU_CUDA)
  std::uint32_t d;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
#else
  const std::uint64_t src = (std::uint64_t{b} << 32) | a;
  std::uint32_t d = 0;
  for (int i = 0; i < 4; ++i) {
    const std::uint32_t n = (c >> (4 * i)) & 15u;
    std::uint32_t byte = std::uint32_t(src >> (8 * (n & 7u))) & 0xffu;
    if ((n & 8u) != 0) byte = (byte & 0x80u) != 0 ? 0xffu : 0u;
    d |= byte << (8 * i);
  }
  return d;
#endif
}

ORDO_HD ORDO_FORCEINLINE std::uint32_t funnel_shift_r(std::uint32_t lo, std::uint32_t hi, unsigned s) {
#if defined(ORDO_DEVICE_PASS) && defined(ORDO_GPU_CUDA)
  return __funnelshift_r(lo, hi, s);
#else
  return std::uint32_t(((std::uint64_t{hi} << 32) | lo) >> (s & 31u));
#endif
}

ORDO_HD ORDO_FORCEINLINE std::uint32_t popcount(std::uint32_t x) {
#if defined(ORDO_DEVICE_PASS)
  return std::uint32_t(__popc(x));
#else
  return std::uint32_t(std::popcount(x));
#endif
}

}  // namespace ordo::gpu
