// Streams a planned file through gguf::writer, generating each tensor in row-aligned chunks.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "synth/generate.hpp"
#include "synth/synth.hpp"

namespace ordo::synth {

namespace {

// Rows are independent (each has its own generator state), so a chunk's rows are split among
// threads without changing a byte; only large chunks are worth the threads.
void fill_chunk(const planned_tensor& t, uint64_t seed, uint64_t first_row, uint64_t n_rows, uint64_t rb,
                std::byte* out) {
  const unsigned hw = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
  const uint64_t n_threads = n_rows * rb < (uint64_t{4} << 20) ? 1 : std::min<uint64_t>(hw, n_rows);
  if (n_threads == 1) return fill_rows(t, seed, first_row, n_rows, out);
  const uint64_t per = (n_rows + n_threads - 1) / n_threads;
  std::vector<std::exception_ptr> errors(n_threads);
  {
    std::vector<std::jthread> pool;
    for (uint64_t i = 0, begin = 0; begin < n_rows; ++i, begin += per) {
      const uint64_t n = std::min(per, n_rows - begin);
      pool.emplace_back([&, i, begin, n] {
        try {
          fill_rows(t, seed, first_row + begin, n, out + begin * rb);
        } catch (...) {
          errors[i] = std::current_exception();
        }
      });
    }
  }  // joins
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace

std::string free_space_shortfall(const std::filesystem::path& dir, uint64_t needed, uint64_t available) {
  if (needed <= available) return {};
  const auto gib = [](uint64_t b) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", double(b) / double(uint64_t{1} << 30));
    return std::string(text);
  };
  return "needs " + gib(needed) + " GiB but " + dir.string() + " has " + gib(available) + " GiB free";
}

void write_file(const file_plan& f, uint64_t seed, const progress_fn& progress, const stop_fn& stop) {
  std::vector<gguf::tensor_spec> specs;
  specs.reserve(f.tensors.size());
  for (const planned_tensor& t : f.tensors) specs.push_back(t.spec);
  gguf::writer w(f.path, f.metadata, std::move(specs));  // creates <path>.partial with the header
  {
    // The writer knows the exact size now; refuse before writing the data, not 77 GB into it.
    const std::filesystem::path dir = std::filesystem::absolute(f.path).parent_path();
    std::error_code ec;
    const auto space = std::filesystem::space(dir, ec);
    if (!ec) {
      const std::string problem = free_space_shortfall(dir, w.file_size() - w.data_offset(), space.available);
      if (!problem.empty()) throw std::runtime_error(problem);
    }
  }
  if (progress) w.on_progress(progress, uint64_t{64} << 20);
  for (const planned_tensor& t : f.tensors) {
    // Chunks hold whole rows (about 16 MiB), so fill_rows can start each at a row boundary.
    const uint64_t rb = row_bytes(t.spec);
    const uint64_t rows_per_chunk = std::max<uint64_t>(1, (uint64_t{16} << 20) / rb);
    w.write_tensor(
        t.spec.name,
        [&](uint64_t offset, std::span<std::byte> out) {
          if (stop && stop()) throw interrupted("interrupted while writing " + f.path.string());
          fill_chunk(t, seed, offset / rb, out.size() / rb, rb, out.data());
        },
        static_cast<std::size_t>(rows_per_chunk * rb));
  }
  w.finish();
}

}  // namespace ordo::synth
