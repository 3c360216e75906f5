// Fixture of skip_status_test (not registered itself): one passing, one skipping and one failing
// test, selected with --gtest_filter by the generated project of check_skip_status.cmake.
#include <gtest/gtest.h>

TEST(fixture, passes) { EXPECT_EQ(1 + 1, 2); }

TEST(fixture, skips) { GTEST_SKIP() << "fixture skip"; }

TEST(fixture, fails) { ADD_FAILURE() << "fixture failure"; }
