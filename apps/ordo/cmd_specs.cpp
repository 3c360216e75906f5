// `ordo specs`: every kernel specialization compiled into this build, one per line, sorted within
// each op family, families in registry/all_ops.hpp order.
#include <cstdio>

#include <CLI/CLI.hpp>

#include "cli.hpp"
#include "ordo/registry/all_ops.hpp"
#include "subcommand.hpp"

namespace {
int run_specs(int argc, char** argv) {
  CLI::App app{"List every kernel specialization compiled into this build (one per line)", "ordo specs"};
  bool verbose = false;
  app.add_flag("-v,--verbose", verbose, "also print each spec's axes, tier and whether a GPU kernel exists");
  if (auto rc = ordo::app::parse(app, argc, argv)) return *rc;
  ordo::registry::for_each_op([&]<class Op>() {
    for (const auto& e : ordo::registry::table<Op>) {
      if (!verbose) {
        std::printf("%.*s\n", int(e.name.size), e.name.data);
        continue;
      }
      std::printf("%-28.*s op=%.*s axes=", int(e.name.size), e.name.data, int(Op::name.size()), Op::name.data());
      for (std::size_t i = 0; i < e.axis_count; ++i)
        std::printf("%s%.*s", i ? "," : "", int(e.axes[i].size), e.axes[i].data);
      std::printf(" tier=%d gpu=%s\n", e.tier, e.launch_gpu ? "yes" : "no");
    }
  });
  return 0;
}
}  // namespace

ORDO_SUBCOMMAND(specs, "list every kernel specialization compiled into this build", run_specs);
