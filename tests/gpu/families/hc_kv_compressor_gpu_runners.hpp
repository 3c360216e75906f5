/// GPU runners for the kv_store and compressor harnesses: host buffers in, host buffers out,
/// the spec's GPU launch (ops/<op>/kernel.hpp's launcher table) in between. Each has the
/// signature of its harness's runner, so a harness run on the GPU is the same run as on the CPU
/// executor. Defined in hc_kv_compressor_gpu_runners.cpp, compiled by the GPU compiler.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "ordo/ops/compressor/entries.hpp"
#include "ordo/ops/kv_store/entries.hpp"

namespace ordo::test::gpu_runners {

int gpu_count();
std::string gpu_name();

void kv_store(const ops::kv_store::cpu_entry& e, const ops::kv_store::problem& p);
void compressor_store(const ops::compressor::store_entry& e, const ops::compressor::store_problem& p);

/// The emit runner for an output row followed by `out_pad` sentinel floats (the harness's
/// emit_at padding), which travel to the device and back.
std::function<void(const ops::compressor::emit_entry&, const ops::compressor::emit_problem&)> compressor_emit(
    std::size_t out_pad);

/// emit_entries() with each entry's `run` launching its spec on the device (output row unpadded):
/// what the harness's run_sequence takes to emit on the GPU.
const std::vector<ops::compressor::emit_entry>& compressor_device_emit_entries();

}  // namespace ordo::test::gpu_runners
