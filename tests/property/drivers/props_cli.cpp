// ordo_props SPEC_GLOB [--cases N] [--seed S]: the properties of every matching registry entry,
// one line per spec (pass, or each failing property with its seeds and minimal counterexample);
// exit status 1 if any spec fails, 2 on bad arguments or no matching spec. Built twice: for the
// CPU executor (P1–P5 + oracle) and, in GPU presets, for the device (E2 + P1–P4). scripts/props
// is the front end.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "check_all.hpp"
#if defined(ORDO_PROPS_DEVICE)
#include "device_backend.hpp"
#endif

int main(int argc, char** argv) {
  std::string glob;
  ordo::test::params p = ordo::test::default_params();
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--cases" && i + 1 < argc) p.cases = std::stoi(argv[++i]);
    else if (a == "--seed" && i + 1 < argc) p.seed = std::stoull(argv[++i]);
    else if (a == "-h" || a == "--help") {
      std::printf("usage: %s SPEC_GLOB [--cases N] [--seed S]\n", argv[0]);
      return 0;
    } else if (glob.empty() && a[0] != '-') glob = a;
    else {
      std::fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0], a.c_str());
      return 2;
    }
  }
  if (glob.empty()) glob = "*";
#if defined(ORDO_PROPS_DEVICE)
  if (ordo::test::device_count() == 0) {
    std::printf("SKIP: no GPU device\n");
    return 0;
  }
  const auto be = ordo::test::device_backend();
  const auto set = ordo::test::property_set::device;
  std::printf("device %s; properties E2 P1 P2 P3 P4; %d cases; seed %llu\n", ordo::test::device_name().c_str(), p.cases,
              (unsigned long long)p.seed);
#else
  const auto be = ordo::test::cpu_backend();
  const auto set = ordo::test::property_set::cpu;
  std::printf("cpu executor; properties P1 P2 P3 P4 P5 oracle; %d cases; seed %llu\n", p.cases, (unsigned long long)p.seed);
#endif
  std::fflush(stdout);
  int failed = 0;
  const auto reports = ordo::test::check_all(be, glob, p, set, [&](const ordo::test::spec_report& r) {
    std::printf("%s\n", r.line().c_str());
    std::fflush(stdout);
    failed += !r.passed();
  });
  if (reports.empty()) {
    std::fprintf(stderr, "no spec matches '%s' (see `ordo specs`)\n", glob.c_str());
    return 2;
  }
  std::printf("%zu specs, %d failed\n", reports.size(), failed);
  return failed ? 1 : 0;
}
