# cmake -DCOMMAND="<relative exe>;<args...>" -DWORKDIR=<dir> -DOTHERDIR=<dir> -P check_replay_line.cmake
#
# The printed replay lines work as pasted, from any directory: runs a
# failing sweep from WORKDIR (the program by a relative path), runs its
# "simasio: replay:" line through sh from OTHERDIR, and checks the same
# seed fails the same way; then replays the shrunk tape (by its relative
# path) and checks that line names the tape, not the seed, and replays too.
file(MAKE_DIRECTORY "${OTHERDIR}")
function(run_line line dir out_var)
  execute_process(COMMAND sh -c "${line}" WORKING_DIRECTORY "${dir}"
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(rc EQUAL 0)
    message(FATAL_ERROR "'${line}' passed in ${dir}; it should fail:\n${out}${err}")
  endif()
  set(${out_var} "${out}${err}" PARENT_SCOPE)
endfunction()
function(replay_of text out_var)
  string(REGEX MATCH "simasio: replay: ([^\n]*)" m "${text}")
  if(NOT m)
    message(FATAL_ERROR "no replay line in:\n${text}")
  endif()
  set(${out_var} "${CMAKE_MATCH_1}" PARENT_SCOPE)
endfunction()

list(JOIN COMMAND " " command_line)
run_line("${command_line}" "${WORKDIR}" first)
string(REGEX MATCH "simasio: FAILED [^\n]* (seed=[0-9]+) [^\n]*: ([^\n]*)" failed "${first}")
set(seed "${CMAKE_MATCH_1}")
set(what "${CMAKE_MATCH_2}")
string(REGEX MATCH "tape: ([^\n ]*)" tape "${first}")
set(tape "${CMAKE_MATCH_1}")
if(NOT failed OR NOT tape)
  message(FATAL_ERROR "the sweep reported no failure with a tape:\n${first}")
endif()
replay_of("${first}" line)
run_line("${line}" "${OTHERDIR}" second)
if(NOT second MATCHES "FAILED [^\n]* ${seed} ")
  message(FATAL_ERROR "'${line}' from ${OTHERDIR} did not fail with ${seed}:\n${second}")
endif()

run_line("SIMASIO_TAPE=${tape} ${command_line}" "${WORKDIR}" third)
replay_of("${third}" tape_line)
if(NOT tape_line MATCHES "^SIMASIO_TAPE=/" OR tape_line MATCHES "SIMASIO_SEED")
  message(FATAL_ERROR "replaying ${tape} printed '${tape_line}', which does not name the tape by an absolute path")
endif()
run_line("${tape_line}" "${OTHERDIR}" fourth)
string(FIND "${fourth}" "${what}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "'${tape_line}' from ${OTHERDIR} did not fail the same way (${what}):\n${fourth}")
endif()
message(STATUS "both replay lines work from ${OTHERDIR}: ${line} / ${tape_line}")
