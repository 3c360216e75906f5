/// GPU runners for the op-family harnesses: host buffers in, host buffers out, the spec's GPU
/// launch (ops/<op>/kernel.hpp's launcher table) in between. Each has the signature of its
/// harness's `runner`, so a harness run on the GPU is the same run as on the CPU executor.
/// Defined in family_gpu_runners.cpp, compiled by the GPU compiler.
#pragma once
#include <string>

#include "ordo/ops/sampling/entries.hpp"

namespace ordo::test::gpu_runners {

int device_count();
std::string device_name();

void sampling(const ops::sampling::cpu_entry& e, const ops::sampling::problem& p);

}  // namespace ordo::test::gpu_runners
