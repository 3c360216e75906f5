// fill_random_gpu (ordo/synth/random_blocks.hpp). A GPU build compiles this TU with the kernel
// compiler (src/synth/CMakeLists.txt); a CPU build compiles it as C++ and the call says there is
// no GPU. The kernel runs the same fill_block<F> as the CPU fill, one thread per block: each
// 256-block tile is built in shared memory, then stored with coalesced 4-byte (or, for a
// misaligned destination, 1-byte) writes, since blocks of 17, 34, 66, 84 or 144 bytes written
// straight from each thread would scatter every store over a warp-wide span.
#include <algorithm>
#include <cstdint>

#include "ordo/synth/random_blocks.hpp"

#if defined(ORDO_GPU)
#include "ordo/quant/visit_format.hpp"
#include "synth/fill_block.hpp"
#endif

namespace ordo::synth {

#if defined(ORDO_GPU)

namespace {

constexpr int tile_blocks = 256;  // = threads per CTA
constexpr unsigned max_grid = 8192;

template <class F>
ORDO_GLOBAL void __launch_bounds__(tile_blocks) fill_kernel(unsigned char* dst, detail::fill_params p, uint64_t blocks) {
  static_assert(tile_blocks * F::block_bytes % 4 == 0, "a tile must be whole 4-byte words");
  constexpr int tile_bytes = tile_blocks * F::block_bytes;
  __shared__ uint32_t stage_words[tile_bytes / 4];  // 4-byte aligned: every block type's alignment
  auto* stage = reinterpret_cast<unsigned char*>(stage_words);
  // Each tile starts at a multiple of tile_bytes (a multiple of 4), so one test covers all tiles.
  const bool word_aligned = (reinterpret_cast<uintptr_t>(dst) & 3u) == 0;
  const uint64_t tiles = (blocks + tile_blocks - 1) / tile_blocks;
  for (uint64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const uint64_t first = tile * tile_blocks;
    const uint64_t i = first + threadIdx.x;
    if (i < blocks) reinterpret_cast<typename F::block*>(stage)[threadIdx.x] = detail::fill_block<F>(p, i);
    __syncthreads();
    const uint64_t in_tile = blocks - first < uint64_t{tile_blocks} ? blocks - first : uint64_t{tile_blocks};
    const unsigned n = static_cast<unsigned>(in_tile) * F::block_bytes;
    unsigned char* out = dst + first * F::block_bytes;
    unsigned done = 0;
    if (word_aligned) {
      done = n / 4 * 4;
      for (unsigned w = threadIdx.x; w < n / 4; w += tile_blocks) reinterpret_cast<uint32_t*>(out)[w] = stage_words[w];
    }
    for (unsigned b = done + threadIdx.x; b < n; b += tile_blocks) out[b] = stage[b];
    __syncthreads();  // the stage is rewritten by the next tile
  }
}

}  // namespace

void fill_random_gpu(std::byte* dst_device, const random_fill& f, gpu::stream_t s) {
  const detail::fill_params p = detail::make_fill_params(f);
  quant::visit_format(f.type, [&]<class F>(F) {
    const uint64_t blocks = f.n_elems / F::block_elems;
    if (blocks == 0) return;
    const uint64_t tiles = (blocks + tile_blocks - 1) / tile_blocks;
    const unsigned grid = static_cast<unsigned>(std::min<uint64_t>(tiles, max_grid));
    fill_kernel<F><<<grid, tile_blocks, 0, gpu::native(s)>>>(reinterpret_cast<unsigned char*>(dst_device), p, blocks);
    ORDO_GPU_CHECK_LAUNCH();
  });
}

#else

void fill_random_gpu(std::byte*, const random_fill& f, gpu::stream_t) {
  (void)random_fill_bytes(f);  // the same argument errors as a GPU build
  throw gpu::error("fill_random_gpu: this build has no GPU (configure the cuda-sm90 or a hip preset)");
}

#endif

}  // namespace ordo::synth
