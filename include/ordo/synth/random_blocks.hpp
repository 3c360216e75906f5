/// Deterministic random weight blocks, filled straight into host or device memory: the data of
/// `ordo bench --synthetic` (the full DS4 Flash weights built in H200 memory, no file) and of tests
/// that need large random tensors. Block b of a tensor is a pure function of (seed, key, b): a
/// counter-based stream (splitmix64 seeded from the three), so any range of blocks can be filled
/// independently, in any order, on any number of threads, and the CPU and GPU bytes are identical
/// (the per-format generators are ORDO_HD functions of integer arithmetic and exact float ops).
///
/// Values follow the recipe's kind::uniform (synth.hpp): float formats uniform on ±stddev·√3;
/// quantized formats zero-mean with standard deviation stddev (in expectation), their scale fields
/// (f16 d and dmin, K-quant sub-block scales and mins, IQ2_XXS d, MXFP4's E8M0 exponent) chosen
/// from stddev and the quant bits random (docs/synth.md, "Random blocks in memory").
/// These are not the bytes `ordo synth` writes for the same tensor (that generator is row-wise and
/// its K-quants carry a mean); the layout and tensor map are the same.
///
/// fill_random_gpu is a plain kernel, not a registry op: it makes test and bench data, it is not a
/// model op, so it has no spec, executor pair or E2 property of its own (its test is GPU bytes ==
/// CPU bytes, tests/gpu/synth). Implemented in src/synth (library ordo_synth).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ordo/gpu/device_api.hpp"
#include "ordo/model/gguf_types.hpp"

namespace ordo::synth {

/// One tensor, or a slice of whole blocks of it, to fill.
struct random_fill {
  gguf::ggml_type type;  // f32, f16, bf16, q8_0, q4_k, q2_k, iq2_xxs, mxfp4
  uint64_t n_elems;      // elements to write: a multiple of the type's block size
  float stddev;          // the recipe's target standard deviation, in [min_stddev, max_stddev]
  uint64_t seed;         // the model seed
  uint64_t key;          // tensor identity: random_fill_key(tensor name)
  uint64_t first_block = 0;  // a slice: the tensor's block index of the first block written
};

/// The stddev range every format represents without overflow and with well-resolved f16 scales
/// (smaller values would leave IQ2_XXS's d a handful of f16 subnormal steps).
inline constexpr float min_stddev = 0x1p-14f;
inline constexpr float max_stddev = 0x1p12f;

/// FNV-1a (64-bit) of the tensor name: fixed forever, so a (seed, name) always gives the same bytes.
uint64_t random_fill_key(std::string_view tensor_name);

/// Bytes `f` writes (n_elems / block_elems · block_bytes). Throws std::invalid_argument for a type
/// that is not one of the eight, n_elems not a whole number of blocks, or stddev outside
/// [min_stddev, max_stddev] (or NaN); the fill functions check the same.
uint64_t random_fill_bytes(const random_fill& f);

/// Fills `dst` (host memory, random_fill_bytes(f) bytes, any alignment) on `threads` threads
/// (0: automatic, one per 4 MiB up to the hardware concurrency or 8); the bytes do not depend on it.
void fill_random_cpu(std::byte* dst, const random_fill& f, unsigned threads = 0);

/// Fills `dst_device` (device memory, random_fill_bytes(f) bytes, any alignment) with the bytes
/// fill_random_cpu writes; asynchronous on stream `s` (launch errors throw gpu::error). A build
/// without a GPU throws gpu::error saying so.
void fill_random_gpu(std::byte* dst_device, const random_fill& f, gpu::stream_t s);

}  // namespace ordo::synth
