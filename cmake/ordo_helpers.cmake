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
# A GoogleTest executable registered with CTest. RAPIDCHECK adds rapidcheck + its gtest glue.
# Tests labelled `gpu` print "SKIP: ..." without a device; CTest then reports them as skipped.
function(ordo_add_test name)
  cmake_parse_arguments(A "RAPIDCHECK;NO_MAIN" "TIMEOUT" "SOURCES;DEPS;LABELS;ARGS" ${ARGN})
  add_executable(${name} ${A_SOURCES})
  target_link_libraries(${name} PRIVATE ordo_headers ${A_DEPS})
  if(NOT A_NO_MAIN)
    target_link_libraries(${name} PRIVATE GTest::gtest_main)
  endif()
  if(A_RAPIDCHECK)
    target_link_libraries(${name} PRIVATE rapidcheck rapidcheck_gtest)
  endif()
  add_test(NAME ${name} COMMAND ${name} ${A_ARGS})
  if(NOT A_TIMEOUT)
    set(A_TIMEOUT 600)
  endif()
  set_tests_properties(${name} PROPERTIES TIMEOUT ${A_TIMEOUT}
                       SKIP_REGULAR_EXPRESSION "^SKIP: " LABELS "${A_LABELS}")
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
