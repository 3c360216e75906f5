/// How an ordo gtest binary ends, so that CTest tells a skip from a pass and from a failure
/// (cmake/ordo_helpers.cmake registers every test with SKIP_RETURN_CODE 77). gtest's own main
/// returns 0 when tests were skipped, and CTest then reports Passed; a "[  SKIPPED ]" regex would
/// instead hide a failure of another test in the same binary. So: any failure → 1 (Failed); else any
/// skip, or no test selected at all → a "SKIP: ..." line and 77 (Skipped); else 0 (Passed).
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace ordo::test {

/// The SKIP_RETURN_CODE of every test ordo_register_test adds.
inline constexpr int skipped_exit_status = 77;

/// RUN_ALL_TESTS (after testing::InitGoogleTest) with the exit status described above.
inline int run_all_tests() {
  if (RUN_ALL_TESTS() != 0) return 1;
  const testing::UnitTest& unit = *testing::UnitTest::GetInstance();
  if (unit.test_to_run_count() == 0) {
    std::printf("SKIP: no test selected\n");
    return skipped_exit_status;
  }
  if (unit.skipped_test_count() == 0) return 0;
  std::string names;
  for (int s = 0; s < unit.total_test_suite_count(); ++s) {
    const testing::TestSuite& suite = *unit.GetTestSuite(s);
    for (int t = 0; t < suite.total_test_count(); ++t) {
      const testing::TestInfo& info = *suite.GetTestInfo(t);
      if (info.result()->Skipped()) names += std::string(" ") + suite.name() + "." + info.name();
    }
  }
  std::printf("SKIP: %d of %d tests skipped:%s\n", unit.skipped_test_count(), unit.test_to_run_count(),
              names.c_str());
  return skipped_exit_status;
}

}  // namespace ordo::test
