// `ordo inspect FILE`: GGUF metadata, tensor table, bytes per tensor class and validation
// (src/inspect). Exit status 1 on an invalid file.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include "inspect/inspect.hpp"
#include "cli.hpp"
#include "runtime/plan_report.hpp"
#include "subcommand.hpp"

namespace {

int run_inspect(int argc, char** argv) {
  CLI::App app{"Show and validate a GGUF file", "ordo inspect"};
  std::string path;
  ordo::inspect::options opt;
  bool no_metadata = false, no_tensors = false;
  app.add_option("file", path, "GGUF file")->required();
  app.add_option("--items", opt.max_array_items, "array items shown per metadata value")
      ->capture_default_str();
  // One glob per --group (so a FILE after it stays the positional), any number of --group.
  app.add_option("--group", opt.groups,
                 "also total the tensors matching this glob, e.g. 'blk.*.ffn_*_exps.weight' "
                 "(repeatable)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_flag("--no-metadata", no_metadata, "omit the metadata listing");
  app.add_flag("--no-tensors", no_tensors, "omit the per-tensor table (classes are still shown)");
  // --plan: the engine's memory plan instead of the file report (src/runtime/plan_report.hpp).
  bool plan = false;
  ordo::runtime::plan_report_options plan_opt;
  app.add_flag("--plan", plan, "show the memory plan (weights, state, workspace) and whether it fits");
  app.add_option("--ctx", plan_opt.ctx, "--plan: context length in positions (default: min(32768, the model's))");
  app.add_option("--tier", plan_opt.tier, "--plan: workspace rows (largest tier)")->capture_default_str();
  app.add_option("--device-mem", plan_opt.device_bytes, "--plan: check the GPU placement against this many bytes");
  app.add_option("--host-mem", plan_opt.host_bytes, "--plan: host RAM in bytes (default: this machine's)");
  app.add_option("--mtp", plan_opt.mtp, "--plan: antirez/ds4 MTP sidecar file");
  if (auto rc = ordo::app::parse(app, argc, argv)) return *rc;
  if (plan) return ordo::runtime::print_memory_plan(path, plan_opt, stdout, stderr);
  opt.show_metadata = !no_metadata;
  opt.show_tensors = !no_tensors;
  return ordo::inspect::run(path, opt, stdout, stderr);
}

}  // namespace

ORDO_SUBCOMMAND(inspect, "show a GGUF file's metadata, tensors and validation result", run_inspect);
