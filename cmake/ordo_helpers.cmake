# Helpers every CMakeLists in the tree uses, so components stay one small file each.
include_guard(GLOBAL)

# ordo_add_library(NAME SOURCES ... [DEPS ...])
# A static library of non-template host code (src/<component>). It is recorded in the global
# ORDO_LIBRARIES list so apps/ links every component without a central list to edit.
function(ordo_add_library name)
  cmake_parse_arguments(A "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${A_SOURCES})
  target_link_libraries(${name} PUBLIC ordo_headers ${A_DEPS})
  # src/<component>/*.hpp are included as "<component>/name.hpp".
  target_include_directories(${name} PUBLIC "${PROJECT_SOURCE_DIR}/src")
  set_property(GLOBAL APPEND PROPERTY ORDO_LIBRARIES ${name})
endfunction()

# ordo_add_test(NAME SOURCES ... [DEPS ...] [LABELS ...] [ARGS ...] [TIMEOUT s] [RAPIDCHECK] [NO_MAIN])
# A GoogleTest executable (ordo_add_test_executable) registered with CTest (ordo_register_test).
function(ordo_add_test name)
  cmake_parse_arguments(A "RAPIDCHECK;NO_MAIN" "TIMEOUT" "SOURCES;DEPS;LABELS;ARGS" ${ARGN})
  set(flags "")
  if(A_RAPIDCHECK)
    list(APPEND flags RAPIDCHECK)
  endif()
  if(A_NO_MAIN)
    list(APPEND flags NO_MAIN)
  endif()
  ordo_add_test_executable(${name} SOURCES ${A_SOURCES} DEPS ${A_DEPS} ${flags})
  ordo_register_test(${name} COMMAND ${name} ${A_ARGS} TIMEOUT "${A_TIMEOUT}" LABELS ${A_LABELS})
endfunction()

# ordo_add_test_executable(NAME SOURCES ... [DEPS ...] [RAPIDCHECK] [NO_MAIN])
# The executable of a test, not registered. RAPIDCHECK adds rapidcheck + its gtest glue. Without
# NO_MAIN it gets ordo_gtest_main (tests/support/gtest_main.cpp): gtest's main, but a run that
# skipped a test and failed none exits 77 (tests/support/gtest_run.hpp). Every test can include
# "support/..." (tests/support).
function(ordo_add_test_executable name)
  cmake_parse_arguments(A "RAPIDCHECK;NO_MAIN" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${A_SOURCES})
  target_link_libraries(${name} PRIVATE ordo_headers ${A_DEPS})
  target_include_directories(${name} PRIVATE "${PROJECT_SOURCE_DIR}/tests")
  if(NOT A_NO_MAIN)
    if(NOT TARGET ordo_gtest_main)
      add_library(ordo_gtest_main STATIC "${PROJECT_SOURCE_DIR}/tests/support/gtest_main.cpp")
      target_include_directories(ordo_gtest_main PUBLIC "${PROJECT_SOURCE_DIR}/tests")
      target_link_libraries(ordo_gtest_main PUBLIC GTest::gtest)
    endif()
    target_link_libraries(${name} PRIVATE ordo_gtest_main)
  endif()
  if(A_RAPIDCHECK)
    target_link_libraries(${name} PRIVATE rapidcheck rapidcheck_gtest)
  endif()
endfunction()

# ordo_register_test(NAME COMMAND ... [TIMEOUT s] [LABELS ...])
# Adds a CTest (default timeout 600 s) that CTest reports as Skipped, never as Passed, when the
# program skipped: it exits with 77 (what ordo_gtest_main returns when a test skipped and none
# failed), or a line of its output, any line, starts with "SKIP: " (what the `gpu` programs print
# without a device). A gtest test skips with GTEST_SKIP() << why and never prints "SKIP: " itself:
# that line would turn a failure of another test in the same binary into a skip.
# tests/unit/cmake checks these rules on a generated project.
function(ordo_register_test name)
  cmake_parse_arguments(A "" "TIMEOUT" "COMMAND;LABELS" ${ARGN})
  if(NOT A_TIMEOUT)
    set(A_TIMEOUT 600)
  endif()
  add_test(NAME ${name} COMMAND ${A_COMMAND})
  set_tests_properties(${name} PROPERTIES TIMEOUT ${A_TIMEOUT} SKIP_RETURN_CODE 77
                       SKIP_REGULAR_EXPRESSION "(^|\n)SKIP: " LABELS "${A_LABELS}")
endfunction()

# Adds every immediate subdirectory of `parent` that has a CMakeLists.txt, sorted, so that a new
# component is picked up by creating its folder (no shared list that parallel work would conflict on).
function(ordo_add_subdirectories parent)
  file(GLOB children LIST_DIRECTORIES true CONFIGURE_DEPENDS "${parent}/*")
  list(SORT children)
  foreach(child IN LISTS children)
    if(IS_DIRECTORY "${child}" AND EXISTS "${child}/CMakeLists.txt")
      add_subdirectory("${child}")
    endif()
  endforeach()
endfunction()

# Compiles the given sources of `target` with the kernel compiler of ORDO_BACKEND and links the
# GPU runtime. With the cpu backend they stay C++ and the GPU entry points compile away.
function(ordo_set_kernel_language target)
  if(ORDO_BACKEND STREQUAL "cuda")
    set_source_files_properties(${ARGN} PROPERTIES LANGUAGE CUDA)
    target_link_libraries(${target} PUBLIC CUDA::cudart_static)
  elseif(ORDO_BACKEND STREQUAL "hip")
    set_source_files_properties(${ARGN} PROPERTIES LANGUAGE HIP)
    target_link_libraries(${target} PUBLIC hip::host)
  endif()
endfunction()
