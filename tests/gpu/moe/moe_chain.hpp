// The device side of tests/gpu/moe/dependent_launch_test.cpp, in its own translation unit
// (moe_chain.cpp, compiled as device code: nvcc's front end fails on the moe property harness's
// Boost.Hana when that is compiled as CUDA, and only device code may launch the test's kernel).
#pragma once
#include <cstddef>
#include <vector>

#include "ordo/ops/moe/moe.hpp"
#include "ordo/registry/entry.hpp"

namespace ordo::test {

/// What one step reads that the kernel before gate_up writes.
struct moe_chain_step {
  std::vector<std::byte> x_routed, x_shared, ids, weights;
};

/// A chain of moe steps: one problem's sizes and strides (its pointers are replaced by device
/// buffers), the weights, the initial workspace bytes, each step's inputs.
struct moe_chain {
  const registry::entry<ops::moe::op>* gate_up = nullptr;
  const registry::entry<ops::moe::op>* down = nullptr;
  ops::moe::problem p{};
  std::vector<std::byte> gate, up, down_w, shared_gate, shared_up, shared_down, mid, mid_act;
  std::size_t out_floats = 0;
  std::vector<moe_chain_step> steps;
};

/// Every step's output ([steps][out_floats]), chained on one stream with no host synchronization —
/// a kernel copies step j's inputs into ONE set of buffers, then gate_up and down run — and run
/// alone, each launch after a full device synchronization.
struct moe_chain_outputs {
  std::vector<float> chained, alone;
};
moe_chain_outputs run_moe_chain(const moe_chain& c);

}  // namespace ordo::test
