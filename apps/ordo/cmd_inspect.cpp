// `ordo inspect FILE`: GGUF metadata, tensor table, bytes per tensor class and validation
// (src/inspect). Exit status 1 on an invalid file.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include "inspect/inspect.hpp"
#include "cli.hpp"
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
  if (auto rc = ordo::app::parse(app, argc, argv)) return *rc;
  opt.show_metadata = !no_metadata;
  opt.show_tensors = !no_tensors;
  return ordo::inspect::run(path, opt, stdout, stderr);
}

}  // namespace

ORDO_SUBCOMMAND(inspect, "show a GGUF file's metadata, tensors and validation result", run_inspect);
