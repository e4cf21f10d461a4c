# cmake -DCOMMAND="<exe>;<args...>" -DDIR=<dir> -DCHROMIUM=<path> -DDECODED=<text> -P check_sample_trace.cmake
#
# Runs a sample that finds its planted bug, then renders the failing
# seed's trace page in headless Chromium and checks what a reader needs on
# one timeline: arrows labelled with kind, ports and bytes and the
# sample's own decoder (DECODED), the hosts' log lines, the failure marked
# with its message, the controls that filter it; and the page that puts
# the shrunk tape's run beside the seed's, with the line where they part.
if(NOT CHROMIUM)
  message(FATAL_ERROR "chromium is not installed: the trace page cannot be checked (scripts/test.sh installs it)")
endif()
file(REMOVE_RECURSE "${DIR}")
file(MAKE_DIRECTORY "${DIR}")
execute_process(COMMAND ${CMAKE_COMMAND} -E env SIMASIO_ARTIFACTS=${DIR} ${COMMAND} WORKING_DIRECTORY "${DIR}"
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
file(GLOB pages "${DIR}/*-seed*.html")
list(FILTER pages EXCLUDE REGEX "\\.compare\\.html$")
list(LENGTH pages count)
if(count EQUAL 0)
  message(FATAL_ERROR "no trace page under ${DIR} (exit ${rc}):\n${out}${err}")
endif()
list(GET pages 0 page)

include(${CMAKE_CURRENT_LIST_DIR}/render_dom.cmake)
render_dom("${CHROMIUM}" "${DIR}/chromium-profile" "${page}" dom)
foreach(expected "class=\"label\"" "${DECODED}" "class=\"log" "id=\"failure-mark\"" "class=\"failure-label\""
                 "class=\"failure-banner\"" "id=\"filter\"" "class=\"message\"" "class=\"host\"")
  string(FIND "${dom}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the rendered page ${page} has no ${expected}:\n${dom}")
  endif()
endforeach()
string(REGEX MATCH "class=\"label\"[^>]*>[^<]*(udp|tcp_[a-z_]+) [0-9]+-&gt;[0-9]+ [0-9]+ B" label "${dom}")
if(NOT label)
  message(FATAL_ERROR "no arrow label with a kind, ports and bytes in ${page}")
endif()

string(REGEX REPLACE "\\.html$" "-shrunk.compare.html" compare "${page}")
if(NOT EXISTS "${compare}")
  message(FATAL_ERROR "no comparison page ${compare}")
endif()
render_dom("${CHROMIUM}" "${DIR}/chromium-profile" "${compare}" cdom)
foreach(expected "id=\"part\"" "shrunk tape" "they part at line")
  string(FIND "${cdom}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the rendered comparison ${compare} has no ${expected}:\n${cdom}")
  endif()
endforeach()
file(SIZE "${page}" bytes)
message(STATUS "headless Chromium rendered ${page} (${bytes} bytes): labels, '${DECODED}', log lines, the failure; and its comparison")
