/// The device side of the property drivers: a backend whose mover uploads a problem's buffers
/// (padding bytes included), lets the entry's GPU launch run, and downloads what it wrote into
/// the host buffers. Compiled by the GPU compiler (device_backend.cpp); the drivers that use it
/// stay host C++.
#pragma once
#include <string>

#include "backend.hpp"

namespace ordo::test {

/// Number of usable GPUs (0 without a driver or device).
int device_count();
/// "NVIDIA H200 (132 SMs)" or similar, for logs.
std::string device_name();
/// Runs entries through their launch_gpu on device 0.
backend device_backend();

}  // namespace ordo::test
