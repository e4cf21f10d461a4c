# cmake -DSOURCE=<simasio> -DBINARY=<scratch> -DGENERATOR=<g> -DCXX=<c++> -DCC=<cc> -P check_configure_without_test_packages.cmake
# The plain CMake flow on a machine without the test-only packages (their
# places pointed at an empty folder): the configure succeeds, one message
# names what is left out and scripts/test.sh; with
# SIMASIO_REQUIRE_TEST_PACKAGES=ON (scripts/test.sh, CI) it fails instead.
set(empty ${BINARY}/empty)
file(REMOVE_RECURSE ${BINARY})
file(MAKE_DIRECTORY ${empty})
set(missing -DSIMASIO_UNPACKED_ROOT=${empty} -DSIMASIO_WEBSOCKETPP_INCLUDE=${empty})
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${BINARY}/plain -G ${GENERATOR} -DCMAKE_CXX_COMPILER=${CXX}
                        -DCMAKE_C_COMPILER=${CC} ${missing}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the configure without the test packages failed (${rc}):\n${out}${err}")
endif()
string(REGEX MATCHALL "simasio: some tests are not built" notes "${err}")
list(LENGTH notes count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "expected one message naming what is left out, found ${count}:\n${err}")
endif()
foreach(expected "the C++ REST SDK" "websocketpp" "bash scripts/test.sh installs every test's package")
  string(FIND "${err}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the message does not name ${expected}:\n${err}")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${BINARY}/required -G ${GENERATOR} -DCMAKE_CXX_COMPILER=${CXX}
                        -DCMAKE_C_COMPILER=${CC} ${missing} -DSIMASIO_REQUIRE_TEST_PACKAGES=ON
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(FIND "${err}" "SIMASIO_REQUIRE_TEST_PACKAGES is on" at)
if(rc EQUAL 0 OR at EQUAL -1)
  message(FATAL_ERROR "with SIMASIO_REQUIRE_TEST_PACKAGES=ON a missing package must fail the configure (${rc}):\n${err}")
endif()
file(REMOVE_RECURSE ${BINARY})
message(STATUS "configured without the test packages; refused with SIMASIO_REQUIRE_TEST_PACKAGES=ON")
