// The `main` of the plain GPU test programs (tests/gpu/numeric, quant, synth): without a visible
// device they print "SKIP: …" (CTest reports them skipped: cmake/ordo_helpers.cmake), else they
// return run()'s status; an exception is reported with the program's name, status 2. Rows are
// line-buffered, so they survive a timeout when piped to a log.
#pragma once
#include <cstdio>
#include <exception>

#include "ordo/gpu/device_api.hpp"

namespace ordo::gpu::test {

template <class Run>
int gpu_test_main(const char* program, const char* unchecked, Run&& run) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  try {
    if (device_count() == 0) {
      std::printf("SKIP: no GPU device visible (%s not checked)\n", unchecked);
      return 0;
    }
    return run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", program, e.what());
    return 2;
  }
}

}  // namespace ordo::gpu::test
