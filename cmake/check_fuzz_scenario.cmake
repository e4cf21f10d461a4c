# cmake -DTARGET=<fuzz target> -DNAME=<scenario> -DEXPECT=<regex> -DWORKDIR=<dir> [-DINPUT=<file>] [-DRUNS=<n>]
#       -P check_fuzz_scenario.cmake
#
# A SIMASIO_FUZZ_SCENARIO target finds its planted bug and the failure comes
# back from its tape: runs TARGET on INPUT once (any build: libFuzzer runs a
# file argument once, other builds run their inputs) or, with RUNS, fuzzes
# from nothing for up to RUNS executions (libFuzzer, -seed=1). The run must
# abort with simasio's failure lines (FAILED NAME ... EXPECT), the line that
# names the execution, and a SIMASIO_TAPE replay line; that line, run from
# another directory, must fail the same way.
file(REMOVE_RECURSE "${WORKDIR}")
file(MAKE_DIRECTORY "${WORKDIR}/run" "${WORKDIR}/elsewhere")
if(DEFINED INPUT)
  set(args "${INPUT}")
else()
  set(args -seed=1 -runs=${RUNS} -artifact_prefix=${WORKDIR}/run/)
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env SIMASIO_ARTIFACTS=${WORKDIR}/artifacts ${TARGET} ${args}
                WORKING_DIRECTORY "${WORKDIR}/run" OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
set(first "${out}${err}")
if(rc EQUAL 0)
  message(FATAL_ERROR "${TARGET} ${args} passed; its planted bug should fail it:\n${first}")
endif()
if(NOT first MATCHES "simasio: FAILED ${NAME} seed=[0-9]+ [^\n]*: ${EXPECT}")
  message(FATAL_ERROR "${TARGET} did not fail with '${EXPECT}':\n${first}")
endif()
if(NOT first MATCHES "simasio: fuzz: ${NAME} failed at execution [0-9]+ of this process")
  message(FATAL_ERROR "${TARGET} did not say which execution failed:\n${first}")
endif()
string(REGEX MATCH "simasio: replay: (SIMASIO_TAPE=[^\n]*)" m "${first}")
if(NOT m)
  message(FATAL_ERROR "${TARGET} printed no SIMASIO_TAPE replay line:\n${first}")
endif()
set(line "${CMAKE_MATCH_1}")
execute_process(COMMAND sh -c "${line}" WORKING_DIRECTORY "${WORKDIR}/elsewhere"
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
set(second "${out}${err}")
if(NOT rc EQUAL 1 OR NOT second MATCHES "simasio: FAILED ${NAME} seed=[0-9]+ [^\n]*: ${EXPECT}")
  message(FATAL_ERROR "'${line}' (exit ${rc}) did not fail the same way:\n${second}")
endif()
message(STATUS "${NAME}: found, and its tape replays: ${line}")
