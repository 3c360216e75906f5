/// One kernel source for three compilers. hip-clang (`__HIP__`), nvcc (`__CUDACC__`) and plain
/// host C++ (neither) see the same spellings: ORDO_HD for __host__ __device__ bodies, ORDO_DEVICE
/// for device-only code, and ORDO_DEVICE_PASS for the device compilation pass. Everything else a
/// kernel needs from the platform (shuffles, int8 dots, launches, errors) is in this folder.
#pragma once

#if defined(__HIP__)
#include <hip/hip_runtime.h>
#define ORDO_GPU_HIP 1
#elif defined(__CUDACC__)
#include <cuda_runtime.h>
#define ORDO_GPU_CUDA 1
#endif

#if defined(ORDO_GPU_HIP) || defined(ORDO_GPU_CUDA)
#define ORDO_GPU 1
#define ORDO_HD __host__ __device__
#define ORDO_DEVICE __device__
#define ORDO_GLOBAL __global__
#define ORDO_FORCEINLINE __forceinline__
#else
#define ORDO_HD
#define ORDO_DEVICE
#define ORDO_GLOBAL
#define ORDO_FORCEINLINE inline __attribute__((always_inline))
#endif

// True while compiling device code (the device pass of nvcc/hip-clang). Host replays and the CPU
// executor are the `#else` side of the same source.
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define ORDO_DEVICE_PASS 1
#endif

// `#pragma unroll` for loops of ORDO_HD code: the device compilers need it to keep small arrays
// in registers; the host compiler unrolls by itself and would warn of an unknown pragma.
#if defined(ORDO_DEVICE_PASS)
#define ORDO_UNROLL _Pragma("unroll")
#else
#define ORDO_UNROLL
#endif
