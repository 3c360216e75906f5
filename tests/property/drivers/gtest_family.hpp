/// The gtest face of the drivers: every entry of family Op passes the property set, each spec
/// its own line in the log and its own failure message.
#pragma once
#include <gtest/gtest.h>

#include <cstdio>

#include "check_all.hpp"

namespace ordo::test {

template <class Op>
void expect_family_passes(const backend& be, property_set set, std::string_view glob = "*") {
  const auto reports = check_family<Op>(be, glob, default_params(), set, [](const spec_report& r) {
    std::printf("%s\n", r.line().c_str());
    std::fflush(stdout);
    EXPECT_TRUE(r.passed()) << r.line();
  });
  EXPECT_FALSE(reports.empty()) << "no spec of " << Op::name << " matched: the drivers checked nothing";
}

}  // namespace ordo::test
