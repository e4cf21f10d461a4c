# cmake -DBUILD_DIR=<dir> -DTARGET=<target> -DPROGRAM=<path> -P build_and_run.cmake
#
# Builds one target that is left out of the default build (so that a
# failure to build fails this test alone) and runs it: both must succeed.
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${TARGET} RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${TARGET} did not build:\n${out}${err}")
endif()
execute_process(COMMAND ${PROGRAM} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${TARGET} exited ${rc}:\n${out}${err}")
endif()
message(STATUS "${out}")
