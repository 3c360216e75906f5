// `ordo version`: which build this is (tuning preset and backend), for bug reports and bench logs.
#include <cstdio>

#include "subcommand.hpp"

namespace {
int run_version(int, char**) {
  std::printf("ordo 0.1.0 (tune %s)\n", ORDO_TUNE_NAME);
  return 0;
}
}  // namespace

ORDO_SUBCOMMAND(version, "print the version and the tuning preset of this build", run_version);
