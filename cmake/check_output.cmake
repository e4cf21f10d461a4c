# cmake -DCOMMAND="<exe>;<args...>" [-DENV="A=1;B=2"] [-DTIMES=n] -DEXPECT=<regex>
#       [-DONCE=<regex>] [-DREJECT=<regex>] [-DWORKDIR=<dir>] [-DFAILS=ON] -P check_output.cmake
#
# Runs COMMAND TIMES times (default 1); every run's output (stdout and
# stderr) must match EXPECT, match ONCE exactly once, and not match
# REJECT. With FAILS, the command must also exit non-zero.
if(NOT DEFINED TIMES)
  set(TIMES 1)
endif()
if(NOT WORKDIR)
  set(WORKDIR ".")
endif()
foreach(run RANGE 1 ${TIMES})
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${ENV} ${COMMAND} WORKING_DIRECTORY "${WORKDIR}"
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  set(all "${out}${err}")
  if(FAILS AND rc EQUAL 0)
    message(FATAL_ERROR "run ${run} of ${TIMES} exited 0; it should fail:\n${all}")
  endif()
  if(NOT all MATCHES "${EXPECT}")
    message(FATAL_ERROR "run ${run} of ${TIMES}: output does not match '${EXPECT}':\n${all}")
  endif()
  if(DEFINED REJECT AND all MATCHES "${REJECT}")
    message(FATAL_ERROR "run ${run} of ${TIMES}: output matches '${REJECT}':\n${all}")
  endif()
  if(DEFINED ONCE)
    string(REGEX MATCHALL "${ONCE}" matches "${all}")
    list(LENGTH matches times)
    if(NOT times EQUAL 1)
      message(FATAL_ERROR "run ${run} of ${TIMES}: '${ONCE}' appears ${times} times, not once:\n${all}")
    endif()
  endif()
endforeach()
message(STATUS "${TIMES} run(s) matched '${EXPECT}'")
