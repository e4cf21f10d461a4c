# check_no_real_sockets.cmake — runs a test program under strace and fails if
# any network system call reached the kernel.
#   cmake -DSTRACE=... -DPROGRAM=... -DARGS="a;b" -DLOG=... -P check_no_real_sockets.cmake
# The program's simulated processes make sockets, connect, send and receive:
# simasio::interpose must serve every one of them. Exit 77 (skipped) when
# strace cannot trace here.
execute_process(COMMAND ${STRACE} -f -qq -e trace=%network -e signal=none -o ${LOG} ${PROGRAM} ${ARGS}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT EXISTS ${LOG})
  message("SKIP: strace could not trace the program here: ${err}")
  return()
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the program failed under strace (${rc}):\n${out}\n${err}")
endif()
file(STRINGS ${LOG} calls)
list(LENGTH calls n)
if(n GREATER 0)
  list(SUBLIST calls 0 20 first)
  string(REPLACE ";" "\n" first "${first}")
  message(FATAL_ERROR "${n} network system calls reached the kernel, the first:\n${first}")
endif()
message(STATUS "no network system call reached the kernel")
