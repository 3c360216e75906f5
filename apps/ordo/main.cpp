// `ordo <subcommand> [args]`: dispatches to the registered subcommands (see subcommand.hpp) and
// applies the error conventions of cli.hpp to whatever a subcommand throws.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>

#include "cli.hpp"
#include "subcommand.hpp"

namespace {

void print_usage(std::FILE* out) {
  auto table = ordo::app::subcommands();
  std::sort(table.begin(), table.end(), [](auto& a, auto& b) { return a.name < b.name; });
  std::fprintf(out,
               "usage: ordo <command> [options]   (ordo <command> --help for its options)\n"
               "       ordo --version\n\ncommands:\n");
  for (const auto& s : table)
    std::fprintf(out, "  %-10.*s %.*s\n", int(s.name.size()), s.name.data(), int(s.summary.size()),
                 s.summary.data());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    print_usage(stderr);
    return ordo::app::exit_usage_error;
  }
  std::string_view name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    print_usage(stdout);
    return 0;
  }
  if (name == "--version" || name == "-V") name = "version";
  for (const auto& s : ordo::app::subcommands()) {
    if (s.name != name) continue;
    std::string program = "ordo " + std::string(name);
    argv[1] = program.data();
    try {
      return s.run(argc - 1, argv + 1);
    } catch (const ordo::app::usage_error& e) {
      return ordo::app::report_usage_error(program, e.what());
    } catch (const CLI::ParseError& e) {
      return ordo::app::report_usage_error(program, e.what());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s\n", program.c_str(), e.what());
      return ordo::app::exit_runtime_error;
    }
  }
  std::fprintf(stderr, "ordo: unknown command '%.*s'\n\n", int(name.size()), name.data());
  print_usage(stderr);
  return ordo::app::exit_usage_error;
}
