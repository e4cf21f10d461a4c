# cmake/alias_switch.cmake — one of Boost's example programs with simasio's namespaces switched in
#
#   include(cmake/alias_switch.cmake)
#   simasio_alias_switch(IN <example.cpp> OUT <file> [NAMESPACE <ns>])
#
# The switch a user makes: every `boost::asio` in the code becomes
# `simasio::asio` and every `boost::beast` becomes `simasio::beast` (in
# Beast's examples that is their `namespace net = ...;`, `namespace beast =
# ...;` and `using tcp = ...;` alias lines; Asio's examples spell the
# namespace out). Include paths (`<boost/asio/...>`) are untouched, so the
# program still includes Asio's and Beast's own headers.
#
# With NAMESPACE the program's code is also wrapped in `namespace <ns> {}`
# (its #include lines stay outside; a using-directive for <ns> at global
# scope keeps `::name` finding the program's own file-scope names) and
# `main` becomes `example_main`, so
# a conformance harness can hold a server and a client in one program and
# call either's main. The changed line count is written to <OUT>.lines.

if(CMAKE_SCRIPT_MODE_FILE)
  cmake_minimum_required(VERSION 3.16)  # script mode: today's policies
endif()

# A program's main() may end without a return statement (it then returns 0);
# renamed example_main, the same end is undefined behaviour, and an
# optimizer lets it run on into whatever code follows. Each example_main
# body gets `return 0;` before its closing brace (braces counted from its
# opening one; main()s here hold no brace in a string or character literal).
function(simasio_alias_switch_return_0 out body)
  set(done "")
  set(rest "${body}")
  while(TRUE)
    string(FIND "${rest}" "int example_main(" at)
    if(at EQUAL -1)
      break()
    endif()
    string(SUBSTRING "${rest}" 0 ${at} head)
    string(SUBSTRING "${rest}" ${at} -1 rest)
    string(FIND "${rest}" "{" open)
    math(EXPR pos "${open} + 1")
    string(SUBSTRING "${rest}" 0 ${pos} sig)
    string(APPEND done "${head}${sig}")
    string(SUBSTRING "${rest}" ${pos} -1 rest)
    set(depth 1)
    while(depth GREATER 0)
      string(FIND "${rest}" "{" next_open)
      string(FIND "${rest}" "}" next_close)
      if(next_close EQUAL -1)
        message(FATAL_ERROR "simasio: an example's main() has no closing brace")
      endif()
      if(NOT next_open EQUAL -1 AND next_open LESS next_close)
        math(EXPR depth "${depth} + 1")
        set(cut ${next_open})
      else()
        math(EXPR depth "${depth} - 1")
        set(cut ${next_close})
      endif()
      if(depth EQUAL 0)
        string(SUBSTRING "${rest}" 0 ${cut} inside)
        string(APPEND done "${inside}return 0; ")
        string(SUBSTRING "${rest}" ${cut} -1 rest)
      else()
        math(EXPR cut "${cut} + 1")
        string(SUBSTRING "${rest}" 0 ${cut} inside)
        string(APPEND done "${inside}")
        string(SUBSTRING "${rest}" ${cut} -1 rest)
      endif()
    endwhile()
  endwhile()
  set(${out} "${done}${rest}" PARENT_SCOPE)
endfunction()

function(simasio_alias_switch)
  cmake_parse_arguments(arg "" "IN;OUT;NAMESPACE" "" ${ARGN})
  if(NOT EXISTS "${arg_IN}")
    message(FATAL_ERROR "simasio: Boost example ${arg_IN} is missing. The conformance suite reads Boost's own "
                        "examples from Debian's libboost1.81-doc package: apt-get install libboost1.81-doc "
                        "(scripts/test.sh installs it).")
  endif()
  file(READ "${arg_IN}" content)
  # Count the lines the switch touches (for the README's table).
  string(REPLACE ";" "," plain "${content}")  # MATCHALL returns a ;-list
  string(REGEX MATCHALL "[^\n]*boost::(asio|beast)[^\n]*" touched "${plain}")
  list(LENGTH touched changed)
  string(REGEX REPLACE "boost::(asio|beast)" "simasio::\\1" content "${content}")
  if(arg_NAMESPACE)
    string(REGEX MATCHALL "(^|\n)[ \t]*#[ \t]*include[^\n]*" includes "${content}")
    string(REGEX REPLACE "(^|\n)[ \t]*#[ \t]*include[^\n]*" "\\1" body "${content}")
    string(REGEX REPLACE "(^|[\n \t])int[ \t]+main[ \t]*\\(" "\\1int example_main(" body "${body}")
    simasio_alias_switch_return_0(body "${body}")
    string(REPLACE ";" "" includes "${includes}")  # the list separators (include lines hold none)
    # The using-directive keeps the program's own `::name` (websocketpp's
    # examples write `::_1` after `using ...::_1;`) finding its file-scope names.
    set(content "// Generated from ${arg_IN} by cmake/alias_switch.cmake: do not edit.\n${includes}\n\nnamespace ${arg_NAMESPACE} {}\nusing namespace ${arg_NAMESPACE};\nnamespace ${arg_NAMESPACE} {\n#line 1 \"${arg_IN}\"\n${body}\n}  // namespace ${arg_NAMESPACE}\n")
  endif()
  set(old "")
  if(EXISTS "${arg_OUT}")
    file(READ "${arg_OUT}" old)
  endif()
  if(NOT old STREQUAL content)
    file(WRITE "${arg_OUT}" "${content}")
  endif()
  file(WRITE "${arg_OUT}.lines" "${changed}\n")
endfunction()

# Script mode: cmake -DIN=<example.cpp> -DOUT=<file> [-DNAMESPACE=<ns>] -P cmake/alias_switch.cmake
if(CMAKE_SCRIPT_MODE_FILE AND DEFINED IN)
  if(DEFINED NAMESPACE)
    simasio_alias_switch(IN "${IN}" OUT "${OUT}" NAMESPACE "${NAMESPACE}")
  else()
    simasio_alias_switch(IN "${IN}" OUT "${OUT}")
  endif()
endif()
