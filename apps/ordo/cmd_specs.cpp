// `ordo specs`: every kernel specialization compiled into this build, one per line, sorted.
#include <cstdio>

#include <CLI/CLI.hpp>

#include "ordo/registry/qmv_registry.hpp"
#include "cli.hpp"
#include "subcommand.hpp"

namespace {
int run_specs(int argc, char** argv) {
  CLI::App app{"List every kernel specialization compiled into this build (one per line)", "ordo specs"};
  bool verbose = false;
  app.add_flag("-v,--verbose", verbose, "also print format, activation, tier, order and whether a GPU kernel exists");
  if (auto rc = ordo::app::parse(app, argc, argv)) return *rc;
  for (const auto& e : ordo::registry::qmv_table) {
    if (verbose)
      std::printf("%-24.*s format=%.*s activation=%.*s tier=%d order=%.*s gpu=%s\n", int(e.name.size), e.name.data,
                  int(e.format.size()), e.format.data(), int(e.activation.size()), e.activation.data(), e.tier,
                  int(e.order.size()), e.order.data(), e.launch_gpu ? "yes" : "no");
    else
      std::printf("%.*s\n", int(e.name.size), e.name.data);
  }
  return 0;
}
}  // namespace

ORDO_SUBCOMMAND(specs, "list every kernel specialization compiled into this build", run_specs);
