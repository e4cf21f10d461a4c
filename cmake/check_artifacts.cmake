# cmake -DSCENARIO=<exe> -DDIR=<dir> [-DCHROMIUM=<path>] -P check_artifacts.cmake
#
# Runs a failing scenario, then checks its trace artifacts: the JSON lines
# and the Chrome trace parse as JSON with the expected content and named
# fields (no raw integers to decode), and the HTML diagram, rendered by
# headless Chromium, draws lanes, messages, drops with their reasons,
# duplicates, topology changes, a crash and a restart.
file(REMOVE_RECURSE "${DIR}")
execute_process(COMMAND "${SCENARIO}" "${DIR}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the scenario did not fail as planned:\n${out}${err}")
endif()
if(NOT err MATCHES "simasio: trace: ([^ ]+)\\.json \\(Perfetto/Chrome\\) and ")
  message(FATAL_ERROR "no 'simasio: trace:' line:\n${err}")
endif()
set(base "${CMAKE_MATCH_1}")

file(STRINGS "${base}.jsonl" lines)
list(LENGTH lines count)
if(count LESS 10)
  message(FATAL_ERROR "${base}.jsonl has only ${count} events")
endif()
list(GET lines 0 first)
string(JSON kind GET "${first}" kind)
string(JSON step GET "${first}" step)
foreach(line IN LISTS lines)
  string(JSON line_kind GET "${line}" kind)
  if(line_kind STREQUAL "net_drop")
    string(JSON packet GET "${line}" packet)
    string(JSON reason GET "${line}" reason)
    break()
  endif()
endforeach()
if(NOT DEFINED reason)
  message(FATAL_ERROR "${base}.jsonl has no net_drop with a packet and a reason")
endif()
foreach(ext jsonl json html)
  file(READ "${base}.${ext}" text)
  foreach(raw "\"a\":" "\"b\":" "4294967295")
    string(FIND "${text}" "${raw}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "${base}.${ext} has ${raw}: fields must be named, hosts by name or null")
    endif()
  endforeach()
endforeach()

file(READ "${base}.json" chrome)
string(JSON events LENGTH "${chrome}" traceEvents)
if(events LESS count)
  message(FATAL_ERROR "the Chrome trace has ${events} entries for ${count} events")
endif()
string(JSON track GET "${chrome}" traceEvents 1 args name)
if(NOT track STREQUAL "alice")
  message(FATAL_ERROR "the Chrome trace's first host track is '${track}', not alice")
endif()

if(CHROMIUM)
  execute_process(COMMAND "${CHROMIUM}" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run
                          --disable-background-networking --disable-component-update --disable-sync
                          --user-data-dir=${DIR}/chromium-profile --dump-dom "file://${base}.html"
                  OUTPUT_VARIABLE dom ERROR_VARIABLE ignored RESULT_VARIABLE rc TIMEOUT 120)
  foreach(expected "class=\"lane\"" "class=\"message\"" "class=\"drop\"" "class=\"drop-reason\"" "class=\"duplicate\""
                   "class=\"fault\"" "<title>step "
                   "class=\"crash\"" "class=\"restart\"" ">alice<" ">bob<" ">carol<" "class=\"time\""
                   "class=\"label\"" "id=\"failure-mark\"" "class=\"failure-banner\"")
    string(FIND "${dom}" "${expected}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "the rendered diagram has no ${expected} (chromium exit ${rc}):\n${dom}")
    endif()
  endforeach()
  message(STATUS "headless Chromium rendered ${base}.html with every expected element")
else()
  message(FATAL_ERROR "chromium is not installed: the diagram cannot be checked (scripts/test.sh installs it)")
endif()
message(STATUS "${count} events; first: ${kind} at step ${step}; a drop: packet ${packet}, ${reason}")
