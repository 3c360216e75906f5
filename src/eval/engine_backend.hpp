/// `--backend cpu` and `--backend gpu`: the exact engine (runtime::session) on the CPU or the GPU
/// executor. `step` feeds one token, `prefill` (last row) runs layer-major chunks; both give the
/// bits of one token at a time (E3), and the two executors give the same bits (E2 at model
/// level). `speculate` runs exact MTP speculation on either executor (the session's target and
/// MTP block, speculative.hpp). `restart()` clears the sequence state and keeps the loaded (and, on the GPU,
/// uploaded) weights.
#pragma once
#include <memory>

#include "eval/backend.hpp"

namespace ordo::eval {

std::unique_ptr<backend> make_cpu_backend(const backend_options& options);
/// Throws gpu::error when this build or machine has no GPU.
std::unique_ptr<backend> make_gpu_backend(const backend_options& options);
/// Whether make_gpu_backend can run here (a GPU build and a device).
bool gpu_device_present();

}  // namespace ordo::eval
