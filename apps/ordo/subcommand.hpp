/// The `ordo` command's subcommand table. Each subcommand lives in its own cmd_<name>.cpp and
/// registers itself with ORDO_SUBCOMMAND, so adding one never edits a shared list.
#pragma once
#include <string_view>
#include <vector>

namespace ordo::app {

struct subcommand {
  std::string_view name;
  std::string_view summary;  // one line for `ordo --help`
  int (*run)(int argc, char** argv);  // argv[0] is "ordo <name>"; returns the exit status
};

inline std::vector<subcommand>& subcommands() {
  static std::vector<subcommand> table;
  return table;
}

struct subcommand_registrar {
  explicit subcommand_registrar(subcommand s) { subcommands().push_back(s); }
};

}  // namespace ordo::app

#define ORDO_SUBCOMMAND(NAME, SUMMARY, FN) \
  static const ::ordo::app::subcommand_registrar ordo_subcommand_##NAME{{#NAME, SUMMARY, FN}}
