// Streams a planned file through gguf::writer, generating each tensor in row-aligned chunks.
#include <algorithm>

#include "synth/generate.hpp"
#include "synth/synth.hpp"

namespace ordo::synth {

void write_file(const file_plan& f, uint64_t seed, const progress_fn& progress) {
  std::vector<gguf::tensor_spec> specs;
  specs.reserve(f.tensors.size());
  for (const planned_tensor& t : f.tensors) specs.push_back(t.spec);
  gguf::writer w(f.path, f.metadata, std::move(specs));
  if (progress) w.on_progress(progress, uint64_t{64} << 20);
  for (const planned_tensor& t : f.tensors) {
    // Chunks hold whole rows (about 16 MiB), so fill_rows can start each at a row boundary.
    const uint64_t rb = row_bytes(t.spec);
    const uint64_t rows_per_chunk = std::max<uint64_t>(1, (uint64_t{16} << 20) / rb);
    w.write_tensor(
        t.spec.name,
        [&](uint64_t offset, std::span<std::byte> out) {
          fill_rows(t, seed, offset / rb, out.size() / rb, out.data());
        },
        static_cast<std::size_t>(rows_per_chunk * rb));
  }
  w.finish();
}

}  // namespace ordo::synth
