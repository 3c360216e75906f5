# Every public header compiles on its own (DESIGN §2; CUTLASS's test/self_contained_includes):
# one generated translation unit per include/ordo/**/*.hpp that includes only that header,
# compiled as an OBJECT library in the language given, so a header that leans on an include its
# user happened to make first fails the build that checks it.
#
#   CXX  (g++, cpu-* presets): every header, the host compiler's view (ORDO_GPU undefined: the
#        device-only parts of gpu/ and ops/ headers compile away, the rest is ordinary C++).
#   CUDA (nvcc, cuda-sm90):    every header GPU code may include, compiled by nvcc: the host pass
#        with the host compiler and the device pass for sm_90.
#   HIP  (clang-19, hip-*):    the same headers, host pass plus one device pass per preset arch.
# The host-only trees (ref/: Eigen double-precision reference; model/: the GGUF reader's
# description types) are checked by the host pass only: no GPU TU includes them.
include_guard(GLOBAL)

# ordo_add_header_check(NAME LANGUAGE <CXX|CUDA|HIP> [EXCLUDE_DIRS dir...])
# EXCLUDE_DIRS are folders under include/ordo (e.g. ref) left out of this check.
function(ordo_add_header_check name)
  cmake_parse_arguments(A "" "LANGUAGE" "EXCLUDE_DIRS" ${ARGN})
  set(_root "${PROJECT_SOURCE_DIR}/include")
  file(GLOB_RECURSE _headers CONFIGURE_DEPENDS RELATIVE "${_root}" "${_root}/ordo/*.hpp")
  list(SORT _headers)
  if(A_LANGUAGE STREQUAL "CUDA")
    set(_ext cu)
  elseif(A_LANGUAGE STREQUAL "HIP")
    set(_ext hip)
  else()
    set(_ext cpp)
  endif()
  set(_tus "")
  foreach(h IN LISTS _headers)
    set(_skip FALSE)
    foreach(d IN LISTS A_EXCLUDE_DIRS)
      if(h MATCHES "^ordo/${d}/")
        set(_skip TRUE)
      endif()
    endforeach()
    if(_skip)
      continue()
    endif()
    string(REGEX REPLACE "\\.hpp$" ".${_ext}" _tu_name "${h}")
    set(_tu "${CMAKE_CURRENT_BINARY_DIR}/${name}/${_tu_name}")
    file(CONFIGURE OUTPUT "${_tu}" CONTENT "#include \"${h}\"\n")
    set_source_files_properties("${_tu}" PROPERTIES LANGUAGE ${A_LANGUAGE})
    list(APPEND _tus "${_tu}")
  endforeach()
  add_library(${name} OBJECT ${_tus})
  target_link_libraries(${name} PRIVATE ordo_headers Eigen3::Eigen)
  if(A_LANGUAGE STREQUAL "CXX")
    target_compile_options(${name} PRIVATE -Wall -Wextra)
  elseif(A_LANGUAGE STREQUAL "CUDA")
    target_link_libraries(${name} PRIVATE CUDA::cudart_static)
  elseif(A_LANGUAGE STREQUAL "HIP")
    target_link_libraries(${name} PRIVATE hip::host)
  endif()
  list(LENGTH _tus _n)
  message(STATUS "${name}: ${_n} headers compile alone as ${A_LANGUAGE}")
endfunction()
