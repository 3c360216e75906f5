// `ordo version` (also `ordo --version`, `ordo -V`): which build this is (tuning preset and
// backend), for bug reports and bench logs.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "cli.hpp"
#include "subcommand.hpp"

namespace {
int run_version(int argc, char** argv) {
  CLI::App app{"Print the version and the tuning preset of this build", "ordo version"};
  if (auto rc = ordo::app::parse(app, argc, argv)) return *rc;
  std::printf("ordo 0.1.0 (tune %s)\n", ORDO_TUNE_NAME);
  return 0;
}
}  // namespace

ORDO_SUBCOMMAND(version, "print the version and the tuning preset of this build", run_version);
