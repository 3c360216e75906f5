# HIP with clang-19 on Debian 12's ROCm 5.2 headers/runtime (toolchain.md, "HIP").
# Three Debian-layout fixes must precede enable_language(HIP), plus a device-library overlay with
# the oclc_isa_version_<id>.bc files ROCm 5.2 lacks for newer targets (gfx1151, gfx942, ...).
include_guard(GLOBAL)

if(NOT CMAKE_HIP_COMPILER)
  set(CMAKE_HIP_COMPILER /usr/bin/clang++-19 CACHE FILEPATH "HIP compiler (clang-19; Debian's hipcc cannot target gfx1151)")
endif()
find_program(ORDO_LLVM_AS NAMES llvm-as-19 llvm-as REQUIRED)
set(_debian_bitcode /usr/lib/x86_64-linux-gnu/amdgcn/bitcode)
if(NOT EXISTS "${_debian_bitcode}/ocml.bc")
  message(FATAL_ERROR "HIP preset: ${_debian_bitcode}/ocml.bc missing; run scripts/bootstrap hip")
endif()

# (1) A shim ROCm root whose hip-lang config includes Debian's and drops its `-isystem /usr/include`
#     (it breaks libstdc++'s #include_next <math.h>).
set(_shim "${CMAKE_BINARY_DIR}/hip-shim")
file(MAKE_DIRECTORY "${_shim}/lib/cmake/hip-lang")
file(WRITE "${_shim}/lib/cmake/hip-lang/hip-lang-config.cmake" "
include(/usr/lib/x86_64-linux-gnu/cmake/hip-lang/hip-lang-config.cmake)
foreach(t hip-lang::device hip-lang::amdhip64)
  if(TARGET \${t})
    set_target_properties(\${t} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES \"\" INTERFACE_SYSTEM_INCLUDE_DIRECTORIES \"\")
  endif()
endforeach()
")
set(CMAKE_HIP_COMPILER_ROCM_ROOT "${_shim}" CACHE PATH "" FORCE)

# (2) amd_comgr and friends are found through Debian's multiarch cmake folder.
set(ENV{CMAKE_PREFIX_PATH} "/usr/lib/x86_64-linux-gnu/cmake:$ENV{CMAKE_PREFIX_PATH}")

# (3) Device-library overlay: Debian's bitcode plus generated oclc_isa_version_<id>.bc files
#     (<id> = the target's digits, e.g. 1151). Each such file only defines __oclc_ISA_version = major*1000 + minor*100 + stepping (gfx1151 -> 11501, gfx90a -> 9010).
set(_overlay "${CMAKE_BINARY_DIR}/hip-device-libs")
file(MAKE_DIRECTORY "${_overlay}")
file(GLOB _bcs "${_debian_bitcode}/*.bc")
foreach(bc IN LISTS _bcs)
  get_filename_component(_n "${bc}" NAME)
  if(NOT EXISTS "${_overlay}/${_n}")
    file(CREATE_LINK "${bc}" "${_overlay}/${_n}" SYMBOLIC)
  endif()
endforeach()
# The generated modules must carry clang-19's AMDGPU data layout (else every link warns).
execute_process(COMMAND "${CMAKE_HIP_COMPILER}" -x c -target amdgcn-amd-amdhsa -nogpulib -S -emit-llvm -o - /dev/null
                OUTPUT_VARIABLE _empty_module RESULT_VARIABLE _rc)
string(REGEX MATCH "target datalayout = \"[^\"]*\"" _datalayout "${_empty_module}")
if(NOT _rc EQUAL 0 OR NOT _datalayout)
  message(FATAL_ERROR "HIP preset: could not read the amdgcn data layout from ${CMAKE_HIP_COMPILER}")
endif()
foreach(arch IN LISTS CMAKE_HIP_ARCHITECTURES ORDO_HIP_HEADER_CHECK_ARCHS)  # the header check's targets need their ISA module too
  if(NOT arch MATCHES "^gfx([0-9]+)([0-9a-f])([0-9a-f])$")
    message(FATAL_ERROR "HIP preset: cannot parse target '${arch}' (expected gfxNNN)")
  endif()
  math(EXPR _minor "0x${CMAKE_MATCH_2}")
  math(EXPR _step "0x${CMAKE_MATCH_3}")
  math(EXPR _isa "${CMAKE_MATCH_1} * 1000 + ${_minor} * 100 + ${_step}")
  string(REPLACE "gfx" "" _id "${arch}")   # files are named by target id, hold the ISA number
  set(_bc "${_overlay}/oclc_isa_version_${_id}.bc")
  if(NOT EXISTS "${_bc}")
    file(WRITE "${_overlay}/isa_${_isa}.ll"
      "${_datalayout}\ntarget triple = \"amdgcn-amd-amdhsa\"\n"
      "@__oclc_ISA_version = linkonce_odr protected local_unnamed_addr addrspace(4) constant i32 ${_isa}, align 4\n")
    execute_process(COMMAND "${ORDO_LLVM_AS}" "${_overlay}/isa_${_isa}.ll" -o "${_bc}" RESULT_VARIABLE _rc)
    if(NOT _rc EQUAL 0)
      message(FATAL_ERROR "HIP preset: could not assemble ${_bc}")
    endif()
  endif()
endforeach()
set(CMAKE_HIP_FLAGS "${CMAKE_HIP_FLAGS} --rocm-path=/usr --hip-device-lib-path=${_overlay}")

enable_language(HIP)
set(CMAKE_HIP_STANDARD 20)
set(CMAKE_HIP_STANDARD_REQUIRED ON)
find_package(hip CONFIG REQUIRED)   # hip::host for the runtime calls of host code
