# cmake -DHELPERS=<cmake/ordo_helpers.cmake> -DGTEST_FIXTURE=<exe> -DPROGRAM_FIXTURE=<exe>
#       -DWORK_DIR=<dir> -P check_skip_status.cmake
# Generates a project that registers the fixtures with ordo_register_test (the rules every ordo
# test gets), runs its ctest and checks that each case is reported as expected: a skip anywhere
# in the output is Skipped, a failure next to a skip is Failed, a plain pass is Passed.
cmake_minimum_required(VERSION 3.25)

# name | fixture | arguments ("^"-separated) | expected ctest status
set(cases
  "gtest_pass|GTEST|--gtest_filter=fixture.passes|Passed"
  "gtest_pass_and_skip|GTEST|--gtest_filter=fixture.passes:fixture.skips|Skipped"
  "gtest_skip_only|GTEST|--gtest_filter=fixture.skips|Skipped"
  "gtest_skip_and_fail|GTEST|--gtest_filter=fixture.skips:fixture.fails|Failed"
  "gtest_fail|GTEST|--gtest_filter=fixture.fails|Failed"
  "gtest_nothing_selected|GTEST|--gtest_filter=no_such.test|Skipped"
  "skip_line_first|PROGRAM|SKIP: no device|Skipped"
  "skip_line_later|PROGRAM|Running main()^SKIP: oracle missing^done|Skipped"
  "skip_word_mid_line|PROGRAM|Running main()^this is not a SKIP: line|Passed")

set(project "${WORK_DIR}/project")
file(REMOVE_RECURSE "${WORK_DIR}")
set(lists "cmake_minimum_required(VERSION 3.25)\nproject(skip_fixtures NONE)\n")
string(APPEND lists "include(\"${HELPERS}\")\nenable_testing()\n")
foreach(c IN LISTS cases)
  string(REPLACE "|" ";" fields "${c}")
  list(GET fields 0 name)
  list(GET fields 1 fixture)
  list(GET fields 2 args)
  string(REPLACE "^" ";" args "${args}")
  set(quoted "")
  foreach(a IN LISTS args)
    string(APPEND quoted " \"${a}\"")
  endforeach()
  string(APPEND lists "ordo_register_test(${name} COMMAND \"${${fixture}_FIXTURE}\"${quoted} TIMEOUT 30)\n")
endforeach()
file(WRITE "${project}/CMakeLists.txt" "${lists}")

execute_process(COMMAND "${CMAKE_COMMAND}" -S "${project}" -B "${WORK_DIR}/build"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the fixture project failed:\n${out}")
endif()
execute_process(COMMAND "${CMAKE_CTEST_COMMAND}" --test-dir "${WORK_DIR}/build"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
message("${out}")

set(wrong 0)
foreach(c IN LISTS cases)
  string(REPLACE "|" ";" fields "${c}")
  list(GET fields 0 name)
  list(GET fields 3 want)
  # ctest prints e.g. "  1/9 Test #1: gtest_pass .......   Passed    0.01 sec" or "***Skipped".
  if(out MATCHES "Test +#[0-9]+: ${name} \\.*[ *]+(Passed|Skipped|Failed)")
    set(got "${CMAKE_MATCH_1}")
  else()
    set(got "(no result line)")
  endif()
  if(got STREQUAL want)
    message("ok   ${name}: ${got}")
  else()
    message("FAIL ${name}: ctest reported ${got}, expected ${want}")
    math(EXPR wrong "${wrong} + 1")
  endif()
endforeach()
if(wrong GREATER 0)
  message(FATAL_ERROR "${wrong} case(s) reported wrongly")
endif()
