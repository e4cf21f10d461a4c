# simasio_add_fuzz_scenario(<target> <source>... [LINK <library>...])
#
# A fuzz target from sources that use SIMASIO_FUZZ_SCENARIO
# (<simasio/check/fuzz.hpp>), linked to simasio::simasio and the LINK
# libraries. Where the compiler links -fsanitize=fuzzer (clang with its
# libFuzzer runtime; Debian: clang and libclang-rt-dev), the sources get the
# fuzzer's coverage and libFuzzer drives the target: run it as any libFuzzer
# program, `<target> -max_total_time=60 corpus/`. Elsewhere (g++) the target
# runs the inputs named on its command line once each (files, or folders of
# them), so a crash file found by a clang build still reruns. In both,
# `SIMASIO_TAPE=<tape> <target>` replays a failure's tape and exits.
#
# simasio_have_libfuzzer(<var>) sets <var> to whether the compiler links
# -fsanitize=fuzzer (cached as SIMASIO_HAVE_LIBFUZZER).
include_guard(GLOBAL)
include(CheckCXXSourceCompiles)
set(_simasio_fuzz_dir "${CMAKE_CURRENT_LIST_DIR}")  # where simasio_fuzz_inputs_main.cpp is, in a build or an install

function(simasio_have_libfuzzer var)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    set(${var} FALSE PARENT_SCOPE)
    return()
  endif()
  if(NOT DEFINED SIMASIO_HAVE_LIBFUZZER)
    set(CMAKE_REQUIRED_FLAGS -fsanitize=fuzzer)
    check_cxx_source_compiles([[
#include <cstddef>
#include <cstdint>
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }
]] SIMASIO_HAVE_LIBFUZZER)
    unset(CMAKE_REQUIRED_FLAGS)
    if(NOT SIMASIO_HAVE_LIBFUZZER)
      message(STATUS "simasio: clang cannot link -fsanitize=fuzzer (Debian: libclang-rt-dev); "
                     "fuzz targets only run the inputs given to them")
    endif()
  endif()
  set(${var} ${SIMASIO_HAVE_LIBFUZZER} PARENT_SCOPE)
endfunction()

function(simasio_add_fuzz_scenario target)
  cmake_parse_arguments(FUZZ "" "" "LINK" ${ARGN})
  if(NOT FUZZ_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "simasio_add_fuzz_scenario(${target}): give the sources (they define the target with "
                        "SIMASIO_FUZZ_SCENARIO)")
  endif()
  simasio_have_libfuzzer(have)
  if(have)
    add_executable(${target} ${FUZZ_UNPARSED_ARGUMENTS})
    target_compile_options(${target} PRIVATE -fsanitize=fuzzer)
    target_link_options(${target} PRIVATE -fsanitize=fuzzer)
  else()
    add_executable(${target} ${FUZZ_UNPARSED_ARGUMENTS} ${_simasio_fuzz_dir}/simasio_fuzz_inputs_main.cpp)
  endif()
  target_compile_features(${target} PRIVATE cxx_std_20)
  target_link_libraries(${target} PRIVATE simasio::simasio ${FUZZ_LINK})
endfunction()
