# cmake -DCOMMAND="<exe>;<args...>" -P check_replay.cmake
#
# Runs a failing sweep, takes the seed from its "simasio: replay:" line,
# runs the same command again with SIMASIO_SEED=<seed> as a separate
# process, and checks that it fails again with the same seed and message.
execute_process(COMMAND ${COMMAND} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
set(all "${out}${err}")
string(REGEX MATCH "simasio: FAILED [^\n]* seed=([0-9]+) [^\n]*: ([^\n]*)" failed "${all}")
if(NOT failed)
  message(FATAL_ERROR "the sweep did not report a failure:\n${all}")
endif()
set(seed "${CMAKE_MATCH_1}")
set(what "${CMAKE_MATCH_2}")
if(NOT all MATCHES "simasio: replay: SIMASIO_SEED=${seed} ")
  message(FATAL_ERROR "no replay line for seed ${seed}:\n${all}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env SIMASIO_SEED=${seed} ${COMMAND}
                OUTPUT_VARIABLE out2 ERROR_VARIABLE err2 RESULT_VARIABLE rc2)
set(all2 "${out2}${err2}")
if(rc2 EQUAL 0)
  message(FATAL_ERROR "the replay of seed ${seed} passed:\n${all2}")
endif()
string(FIND "${all2}" "seed=${seed} " at_seed)
string(FIND "${all2}" "${what}" at_what)
if(at_seed EQUAL -1 OR at_what EQUAL -1)
  message(FATAL_ERROR "the replay of seed ${seed} did not fail the same way (${what}):\n${all2}")
endif()
message(STATUS "seed ${seed} failed again in a separate process: ${what}")
