/// The device side of the qmv test harness: a qmv_backend that uploads a problem's buffers
/// (padding bytes included), launches the registry entry's GPU kernel and downloads the results
/// into the host buffers the problem points at. Compiled by the GPU compiler (gpu_backend.cpp).
#pragma once
#include <string>

#include "../../property/qmv/qmv_harness.hpp"

namespace ordo::test {

/// Number of usable GPUs (0 without a driver or device).
int gpu_device_count();
/// "NVIDIA H200 (132 SMs)" or similar, for logs.
std::string gpu_device_name();
/// Runs quantizers and qmv specs on the device (the entries' launch_gpu).
qmv_backend gpu_backend();

}  // namespace ordo::test
