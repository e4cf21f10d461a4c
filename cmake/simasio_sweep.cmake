# simasio_add_sweep(NAME <name> TARGET <test-executable> SEEDS <n> SHARDS <k> [ARGS <args>...])
#
# Registers a seed sweep as <k> CTest entries, <name>/0 .. <name>/<k-1>. Each
# runs <test-executable> <args> with SIMASIO_SEEDS=<n> and the shard
# variables TEST_TOTAL_SHARDS=<k>, TEST_SHARD_INDEX=<i>, so simasio::check,
# SIMASIO_TEST_CASE and SIMASIO_TEST in that process run every k-th seed from
# the i-th (GoogleTest does not read TEST_*: every entry runs the test).
# `ctest -j` then spreads one sweep over cores, and a CI matrix over machines
# (ctest -I or -R per job).
function(simasio_add_sweep)
  cmake_parse_arguments(SWEEP "" "NAME;TARGET;SEEDS;SHARDS" "ARGS;LABELS" ${ARGN})
  foreach(required NAME TARGET SEEDS SHARDS)
    if(NOT SWEEP_${required})
      message(FATAL_ERROR "simasio_add_sweep: ${required} is required")
    endif()
  endforeach()
  if(NOT SWEEP_SHARDS GREATER 0)
    message(FATAL_ERROR "simasio_add_sweep: SHARDS must be a positive number (got '${SWEEP_SHARDS}')")
  endif()
  math(EXPR last "${SWEEP_SHARDS} - 1")
  foreach(i RANGE ${last})
    add_test(NAME ${SWEEP_NAME}/${i} COMMAND ${SWEEP_TARGET} ${SWEEP_ARGS})
    set_tests_properties(${SWEEP_NAME}/${i} PROPERTIES
      ENVIRONMENT "SIMASIO_SEEDS=${SWEEP_SEEDS};TEST_TOTAL_SHARDS=${SWEEP_SHARDS};TEST_SHARD_INDEX=${i}"
      LABELS "simasio-sweep;${SWEEP_LABELS}")
  endforeach()
endfunction()
