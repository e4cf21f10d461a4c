# cmake/check_asio_names.cmake — keeps include/simasio/asio.hpp complete
#
#   cmake -DASIO_INCLUDE_DIR=/usr/include \
#         -DHEADER=include/simasio/asio.hpp \
#         -P cmake/check_asio_names.cmake
#
# Extracts the public namespace-scope names of boost::asio and
# boost::asio::ip from the installed headers (boost/asio/*.hpp and
# boost/asio/ip/*.hpp) and fails if one is neither re-exported by HEADER
# nor listed below as excluded, with the reason. -DVERBOSE=ON lists every
# extracted name and the header it came from.
#
# The extraction is regex work that relies on Asio's very regular style
# (`namespace boost {` / `} // namespace boost` on their own lines, one
# declaration per statement, namespace-scope definitions starting a line).
# It reads every preprocessor branch except the documentation-only ones, so
# names declared only on Windows, only with deprecated features disabled,
# or only when a feature macro is set are all seen; the header guards them
# with the same macros (its compile tests prove the guards). Names Asio
# declares in boost::asio from detail/ and impl/ headers (its <type_traits>
# imports, aligned_new, ...) are never seen: those files are not read. Two
# additions: functions that a class befriends (make_service) count, and
# nested namespaces are collected from every public subdirectory.
#
# HEADER declares NAME when, comments removed, it holds one of
#   using <qualified>::NAME;   namespace NAME = <qualified>;
#   using NAME = <type>;       namespace NAME {
# Inside a nested `namespace NS { ... }` block (ip; such blocks must hold no
# braces) that declares NS::NAME. A using-directive anywhere is an error.

cmake_minimum_required(VERSION 3.16)

if(NOT ASIO_INCLUDE_DIR)
  message(FATAL_ERROR "set -DASIO_INCLUDE_DIR=<dir holding boost/asio.hpp>")
endif()
if(NOT HEADER)
  message(FATAL_ERROR "set -DHEADER=<path to simasio/asio.hpp>")
endif()
# Relative paths are relative to the working directory.
get_filename_component(ASIO_INCLUDE_DIR "${ASIO_INCLUDE_DIR}" ABSOLUTE)
get_filename_component(HEADER "${HEADER}" ABSOLUTE)
if(NOT EXISTS "${ASIO_INCLUDE_DIR}/boost/asio.hpp")
  message(FATAL_ERROR "no boost/asio.hpp under ${ASIO_INCLUDE_DIR}")
endif()
if(NOT EXISTS "${HEADER}")
  message(FATAL_ERROR "no such header: ${HEADER}")
endif()

# ---------------------------------------------------------------------------
# Names that are deliberately NOT re-exported. Top-level names are plain,
# names of namespace ip are written ip::NAME. Every entry says why.

set(_excluded
  # Internal: the nested namespace of implementation details.
  detail
  # Internal: a hidden friend of basic_streambuf that read_until uses; it
  # is never declared at namespace scope, so no using-declaration can name
  # it (argument-dependent lookup finds it through basic_streambuf).
  read_size_helper
  # Needs OpenSSL headers (boost/asio/ssl.hpp is not part of
  # boost/asio.hpp): <simasio/ssl.hpp> (the simasio::ssl target) adds
  # namespace ssl, and asio.hpp includes it only under SIMASIO_HAS_SSL.
  ssl
)

# Replaced by simasio now: must be declared from simasio, and a re-export
# from boost::asio is an error. When simasio's sockets, signal sets and
# ip::tcp / ip::udp / ip::basic_resolver land (DESIGN.md section 6), move
# their names here.
set(_replaced_by_simasio
  io_context
  io_service
  basic_waitable_timer
  steady_timer
  system_timer
  high_resolution_timer
  basic_socket
  basic_stream_socket
  basic_datagram_socket
  basic_socket_acceptor
  basic_signal_set
  signal_set
  # Refused by simasio (include/simasio/unsimulated.hpp): they touch the
  # real machine, so constructing one throws escape_error.
  basic_serial_port
  serial_port
  posix
)

# ---------------------------------------------------------------------------
# Helpers.

# Removes /* ... */ comments from the variable named VAR.
function(_strip_block_comments var)
  set(in "${${var}}")
  set(out "")
  while(TRUE)
    string(FIND "${in}" "/*" begin)
    if(begin EQUAL -1)
      break()
    endif()
    string(SUBSTRING "${in}" 0 ${begin} head)
    string(APPEND out "${head} ")
    math(EXPR after "${begin} + 2")
    string(SUBSTRING "${in}" ${after} -1 in)
    string(FIND "${in}" "*/" end)
    if(end EQUAL -1)
      set(in "")
      break()
    endif()
    # Keep the newlines so that line-anchored patterns still work.
    string(SUBSTRING "${in}" 0 ${end} comment)
    string(REGEX REPLACE "[^\n]" "" comment "${comment}")
    string(APPEND out "${comment}")
    math(EXPR after "${end} + 2")
    string(SUBSTRING "${in}" ${after} -1 in)
  endwhile()
  set(${var} "${out}${in}" PARENT_SCOPE)
endfunction()

# Replaces innermost OPEN...CLOSE groups (single characters) by MARK until
# none is left.
function(_collapse var open close mark)
  set(text "${${var}}")
  while(TRUE)
    string(REGEX REPLACE "[${open}][^${open}${close}]*[${close}]"
      " ${mark} " next "${text}")
    if(next STREQUAL text)
      break()
    endif()
    set(text "${next}")
  endwhile()
  set(${var} "${text}" PARENT_SCOPE)
endfunction()

# Removes the branches of `#if defined(GENERATING_DOCUMENTATION)` and of
# `#if !defined(GENERATING_DOCUMENTATION) ... #else` that only Asio's
# documentation build sees: they restate real declarations in a simpler
# form, sometimes one the compiler never sees (an unscoped enum for what is
# really an enum class).
function(_drop_documentation_branches var)
  set(text "${${var}}")
  if(NOT text MATCHES "GENERATING_DOCUMENTATION")
    return()
  endif()
  string(REPLACE "@" "@AT@" text "${text}")
  string(REPLACE ";" "@SC@" text "${text}")
  string(REPLACE "[" "@LB@" text "${text}")
  string(REPLACE "]" "@RB@" text "${text}")
  string(REPLACE "\\" "@BS@" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(doc "^[ \t]*#[ \t]*if[ \t]+defined[ \t]*[(][ \t]*GENERATING_DOCUMENTATION[ \t]*[)][ \t]*(//.*)?$")
  set(not_doc "^[ \t]*#[ \t]*if[ \t]+![ \t]*defined[ \t]*[(][ \t]*GENERATING_DOCUMENTATION[ \t]*[)][ \t]*(//.*)?$")
  # One entry per open #if: n (unrelated), d/D (if-branch is documentation:
  # in it / past it), r/R (else-branch is documentation: before it / in it).
  set(stack "")
  set(skipping FALSE)
  set(out "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)")
      set(directive "${CMAKE_MATCH_1}")
      if(directive MATCHES "^if")
        if(line MATCHES "${doc}")
          list(APPEND stack d)
        elseif(line MATCHES "${not_doc}")
          list(APPEND stack r)
        else()
          list(APPEND stack n)
        endif()
      elseif(directive STREQUAL "endif")
        list(REMOVE_AT stack -1)
      else()                                    # elif, else
        list(POP_BACK stack top)
        if(top STREQUAL "d")
          set(top D)
        elseif(top STREQUAL "r")
          set(top R)
        endif()
        list(APPEND stack "${top}")
      endif()
      set(skipping FALSE)
      if("d" IN_LIST stack OR "R" IN_LIST stack)
        set(skipping TRUE)
      endif()
      list(APPEND out "")
    elseif(skipping)
      list(APPEND out "")
    else()
      list(APPEND out "${line}")
    endif()
  endforeach()
  list(JOIN out "\n" text)
  string(REPLACE "@BS@" "\\" text "${text}")
  string(REPLACE "@RB@" "]" text "${text}")
  string(REPLACE "@LB@" "[" text "${text}")
  string(REPLACE "@SC@" ";" text "${text}")
  string(REPLACE "@AT@" "@" text "${text}")
  set(${var} "${text}" PARENT_SCOPE)
endfunction()

# Replaces each unscoped enum definition `enum E { a, b = 1 }` that starts
# a line by `enum E {} @5@ a @5@ b`, so that its enumerators, which are
# namespace-scope names too, survive as a statement of their own.
function(_expose_enumerators var)
  set(text "${${var}}")
  string(REGEX MATCHALL "\nenum [A-Za-z_][A-Za-z0-9_]*[ \t\r\n]*[{][^{}]*[}]"
    enums "${text}")
  foreach(e IN LISTS enums)
    string(REGEX MATCH "[{]([^{}]*)[}]" _ "${e}")
    string(REGEX REPLACE "=[^,]*" "" body "${CMAKE_MATCH_1}")
    string(REGEX MATCHALL "[A-Za-z_][A-Za-z0-9_]*" ids "${body}")
    string(REGEX REPLACE "[{][^{}]*[}]" "{}" replacement "${e}")
    foreach(id IN LISTS ids)
      string(APPEND replacement " @5@ ${id}")
    endforeach()
    string(REPLACE "${e}" "${replacement}" text "${text}")
  endforeach()
  set(${var} "${text}" PARENT_SCOPE)
endfunction()

# Reduces a C++ header to the list of statements seen at namespace scope,
# with markers @OPEN:ns@ and @CLOSE@ for namespaces boost, asio and ip.
# Parentheses become @0@, braces @2@ (so bodies vanish); statements are
# separated by ';' (a CMake list).
function(_statements_of file out_var)
  file(READ "${file}" text)
  set(text "\n${text}\n")
  _strip_block_comments(text)
  string(REPLACE "\\\n" " " text "${text}")               # line splices
  _drop_documentation_branches(text)
  string(REGEX REPLACE "\n[ \t]*#[^\n]*" "\n" text "${text}")  # preprocessor
  # Namespaces boost, asio and ip become markers; anonymous namespaces are
  # transparent (query, require, prefer live in one); every other namespace
  # stays a brace block, collapsed below like a class body.
  string(REGEX REPLACE "\nnamespace (boost|asio|ip) *[{]"
    "\n;@OPEN:\\1@;" text "${text}")
  # (a match eats the next line's leading newline, so repeat)
  set(before "")
  while(NOT before STREQUAL text)
    set(before "${text}")
    string(REGEX REPLACE "\n[}] *// *namespace (boost|asio|ip)[ \t\r]*\n"
      "\n;@CLOSE@;\n" text "${text}")
  endwhile()
  string(REGEX REPLACE "\nnamespace[ \t\n]*[{]" "\n" text "${text}")
  string(REGEX REPLACE "\n[}] *// *namespace[ \t]*\n" "\n" text "${text}")
  string(REGEX REPLACE "//[^\n]*" "" text "${text}")
  string(REGEX REPLACE "\"([^\"\\\\\n]|\\\\.)*\"" "\"\"" text "${text}")
  string(REGEX REPLACE "'([^'\\\\\n]|\\\\.)'" "0" text "${text}")
  # Characters that CMake lists treat specially.
  string(REPLACE "\\" " " text "${text}")
  string(REPLACE "[" " " text "${text}")
  string(REPLACE "]" " " text "${text}")
  _expose_enumerators(text)
  # Operators: never re-exported (found by argument-dependent lookup).
  string(REGEX REPLACE "([^A-Za-z0-9_])operator *[(] *[)]" "\\1 @3@ " text "${text}")
  string(REGEX REPLACE "([^A-Za-z0-9_])operator[^(;{}]*[(]" "\\1 @3@ (" text "${text}")
  string(REPLACE "->" " @4@ " text "${text}")
  _collapse(text "(" ")" "@0@")
  _collapse(text "{" "}" "@2@")
  string(REPLACE "@2@" "@2@;" text "${text}")
  string(REGEX REPLACE "[ \t\r\n]+" " " text "${text}")
  set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

# Functions a class in FILE befriends (make_service, use_service, ...):
# Asio defines some of them at namespace scope only in impl/ headers.
function(_friend_functions_of file out_var)
  file(READ "${file}" text)
  _strip_block_comments(text)
  string(REGEX REPLACE "//[^\n]*" "" text "${text}")
  string(REGEX MATCHALL
    "[^A-Za-z0-9_]friend[^;{}()]*[^A-Za-z0-9_]([A-Za-z_][A-Za-z0-9_]*)[ \t\r\n]*[(]"
    decls "${text}")
  set(names "")
  foreach(d IN LISTS decls)
    string(REGEX MATCH "([A-Za-z_][A-Za-z0-9_]*)[ \t\r\n]*[(]$" _ "${d}")
    set(name "${CMAKE_MATCH_1}")
    if(NOT d MATCHES "operator" AND NOT name IN_LIST names)
      list(APPEND names "${name}")
    endif()
  endforeach()
  set(${out_var} "${names}" PARENT_SCOPE)
endfunction()

set(_keywords
  alignas alignof auto bool char const constexpr decltype delete double
  explicit extern float friend inline int long noexcept operator requires
  return short signed sizeof static static_assert template throw typename
  unsigned void volatile)

# Returns in OUT_KIND/OUT_NAME what a namespace-scope statement declares
# (kind "" if it declares no new name).
function(_classify stmt out_kind out_name)
  set(kind "")
  set(name "")
  set(s "${stmt}")
  _collapse(s "<" ">" "@1@")          # template parameters and arguments
  string(REGEX REPLACE " +" " " s "${s}")
  string(STRIP "${s}" s)
  string(REGEX REPLACE " @2@$" "" s "${s}")
  # A macro invocation that needs no semicolon, before a declaration.
  string(REGEX REPLACE
    "^([A-Z][A-Z0-9_]* @0@ )+(template|namespace|class|struct|union|typedef|using|enum) "
    "\\2 " s "${s}")
  # Template parameter lists that differ per preprocessor branch leave
  # unmatched closing brackets: drop everything up to the last one.
  if(s MATCHES "^template " AND NOT s MATCHES "<")
    string(REGEX REPLACE "^.*> " "template @1@ " s "${s}")
  endif()
  # Leading template headers (template @1@, possibly repeated).
  string(REGEX REPLACE "^(template @1@ )+" "" s "${s}")
  # Compiler-specific decorations.
  string(REGEX REPLACE "__declspec @0@ " "" s "${s}")
  set(id "[A-Za-z_][A-Za-z0-9_]*")
  if(s MATCHES "^template (class|struct) " OR s MATCHES "^extern template ")
    # explicit instantiation: no new name
  elseif(s MATCHES "^(class|struct|union) ([A-Z][A-Z0-9_]* (@0@ )?)*([A-Za-z_][A-Za-z0-9_:]*)")
    set(name "${CMAKE_MATCH_4}")
    if(NOT name MATCHES "::")      # else: out-of-line nested class
      set(kind "class")
    endif()
  elseif(s MATCHES "^typedef .* (${id})$")
    set(kind "typedef")
    set(name "${CMAKE_MATCH_1}")
  elseif(s MATCHES "^using namespace ")
    # using-directive: no new name
  elseif(s MATCHES "^using (${id}) =")
    set(kind "alias")
    set(name "${CMAKE_MATCH_1}")
  elseif(s MATCHES "^using (typename )?[A-Za-z0-9_:@ ]*::(${id})$")
    set(kind "using")
    set(name "${CMAKE_MATCH_2}")
  elseif(s MATCHES "^enum (class |struct )?(${id})")
    set(kind "enum")
    set(name "${CMAKE_MATCH_2}")
  elseif(s MATCHES "^(concept|BOOST_ASIO_CONCEPT) (${id})")
    set(kind "concept")
    set(name "${CMAKE_MATCH_2}")
  elseif(s MATCHES "^namespace (${id})")
    set(kind "namespace")
    set(name "${CMAKE_MATCH_1}")
  elseif(s MATCHES "@3@")
    # an operator
  elseif(NOT s STREQUAL "")
    # A function or a variable: the first identifier that is followed by
    # a parameter list, an initializer or the end, and is neither a macro
    # nor a keyword.
    string(REGEX MATCHALL "[A-Za-z_][A-Za-z0-9_:]*( @0@| =|$)" candidates "${s}")
    foreach(c IN LISTS candidates)
      string(REGEX REPLACE "( @0@| =)$" "" c "${c}")
      if(c MATCHES "^[A-Z][A-Z0-9_]*$" OR c IN_LIST _keywords)
        continue()
      endif()
      if(NOT c MATCHES "::")        # qualified: out-of-line member definition
        set(name "${c}")
        if(s MATCHES "${c} @0@")
          set(kind "function")
        else()
          set(kind "variable")
        endif()
      endif()
      break()
    endforeach()
  endif()
  set(${out_kind} "${kind}" PARENT_SCOPE)
  set(${out_name} "${name}" PARENT_SCOPE)
endfunction()

# ---------------------------------------------------------------------------
# Extract.

file(GLOB _top_headers "${ASIO_INCLUDE_DIR}/boost/asio/*.hpp")
file(GLOB _ip_headers "${ASIO_INCLUDE_DIR}/boost/asio/ip/*.hpp")
list(SORT _top_headers)
list(SORT _ip_headers)

set(_names "")        # NAME or ip::NAME
set(_problems "")

# Records NAME (first sighting wins) with its kind and header.
macro(_add_name name kind rel)
  if(NOT "${name}" IN_LIST _names)
    list(APPEND _names "${name}")
    string(MAKE_C_IDENTIFIER "${name}" _key)
    set(_kind_${_key} "${kind}")
    set(_file_${_key} "${rel}")
  endif()
endmacro()

foreach(file IN LISTS _top_headers _ip_headers)
  file(RELATIVE_PATH rel "${ASIO_INCLUDE_DIR}" "${file}")
  _statements_of("${file}" stmts)
  set(stack "")
  foreach(stmt IN LISTS stmts)
    string(STRIP "${stmt}" stmt)
    if(stmt MATCHES "^@OPEN:([a-z]+)@$")
      list(APPEND stack "${CMAKE_MATCH_1}")
      continue()
    elseif(stmt STREQUAL "@CLOSE@")
      list(LENGTH stack depth)
      if(depth EQUAL 0)
        list(APPEND _problems "${rel}: unbalanced namespace close")
      else()
        list(REMOVE_AT stack -1)
      endif()
      continue()
    endif()
    if(stack STREQUAL "boost;asio")
      set(prefix "")
    elseif(stack STREQUAL "boost;asio;ip")
      set(prefix "ip::")
    else()
      continue()
    endif()
    if(stmt MATCHES "[(){}]")
      list(APPEND _problems "${rel}: unbalanced statement: ${stmt}")
      continue()
    endif()
    if(stmt MATCHES "^@5@ ")
      set(kind "enumerator")
      string(REGEX REPLACE "@5@ " "" found "${stmt}")
      string(REPLACE " " ";" found "${found}")
    else()
      _classify("${stmt}" kind found)
    endif()
    if(kind STREQUAL "")
      continue()
    endif()
    foreach(name IN LISTS found)
      _add_name("${prefix}${name}" "${kind}" "${rel}")
    endforeach()
  endforeach()
  list(LENGTH stack depth)
  if(NOT depth EQUAL 0)
    list(APPEND _problems "${rel}: namespaces left open: ${stack}")
  endif()
  _friend_functions_of("${file}" friends)
  foreach(name IN LISTS friends)
    if(rel MATCHES "/ip/")
      set(name "ip::${name}")
    endif()
    _add_name("${name}" "friend function" "${rel}")
  endforeach()
endforeach()

# Nested namespaces declared only in subdirectories (execution/, generic/,
# local/, posix/, windows/, experimental/, traits/, ssl/, ...): their
# headers open them right after `namespace asio {`.
file(GLOB _sub_headers "${ASIO_INCLUDE_DIR}/boost/asio/*/*.hpp")
list(SORT _sub_headers)
foreach(file IN LISTS _sub_headers)
  file(RELATIVE_PATH rel "${ASIO_INCLUDE_DIR}" "${file}")
  if(rel MATCHES "^boost/asio/(detail|impl)/")
    continue()
  endif()
  file(READ "${file}" text)
  string(REGEX MATCHALL "\nnamespace asio *[{][ \t\r]*\nnamespace [A-Za-z_0-9]+ *[{]"
    opens "${text}")
  foreach(open IN LISTS opens)
    string(REGEX MATCH "namespace ([A-Za-z_0-9]+) *[{]$" _ "${open}")
    set(name "${CMAKE_MATCH_1}")
    if(NOT name STREQUAL "ip")
      _add_name("${name}" "namespace" "${rel}")
    endif()
  endforeach()
endforeach()

list(LENGTH _names _found)
if(_found LESS 200)
  list(APPEND _problems
    "only ${_found} names found: has Asio's header style changed?")
endif()
if(_problems)
  list(JOIN _problems "\n  " text)
  message(FATAL_ERROR "asio names: could not parse the Asio headers:\n  ${text}")
endif()
list(SORT _names)

# ---------------------------------------------------------------------------
# What the header declares.

file(READ "${HEADER}" _header)
_strip_block_comments(_header)
string(REGEX REPLACE "//[^\n]*" "" _header "${_header}")
string(REGEX REPLACE "[ \t\r\n]+" " " _header "${_header}")
string(REPLACE ";" " @SC@" _header "${_header}")      # keep CMake lists whole
if(_header MATCHES "using namespace ")
  message(FATAL_ERROR "asio names: ${HEADER} holds a using-directive; "
    "re-export with using-declarations only")
endif()

set(_declared "")     # NAME or ip::NAME
set(_from_boost "")   # the subset that names an entity of boost::asio

# Adds what TEXT declares, each name prefixed by PREFIX.
function(_declarations text prefix)
  set(declared "${_declared}")
  set(from_boost "${_from_boost}")
  set(id "[A-Za-z_][A-Za-z0-9_]*")
  string(REGEX MATCHALL "using [A-Za-z0-9_:]+::${id} @SC@" decls "${text}")
  string(REGEX MATCHALL "namespace ${id} ?= ?[A-Za-z0-9_:]+ @SC@" aliases "${text}")
  string(REGEX MATCHALL "using ${id} ?= ?[^@]+ @SC@" types "${text}")
  string(REGEX MATCHALL "namespace ${id} ?[{]" nested "${text}")
  foreach(d IN LISTS decls aliases types nested)
    if(d MATCHES "^using ([A-Za-z0-9_:]+)::(${id}) @SC@$")
      set(source "${CMAKE_MATCH_1}")
      set(name "${CMAKE_MATCH_2}")
    elseif(d MATCHES "^(namespace|using) (${id}) ?= ?(.*) @SC@$")
      set(name "${CMAKE_MATCH_2}")
      set(source "${CMAKE_MATCH_3}")
    elseif(d MATCHES "^namespace (${id})")
      set(name "${CMAKE_MATCH_1}")
      set(source "")
    endif()
    list(APPEND declared "${prefix}${name}")
    if(source MATCHES "^(::)?boost::asio(::|$)")
      list(APPEND from_boost "${prefix}${name}")
    endif()
  endforeach()
  set(_declared "${declared}" PARENT_SCOPE)
  set(_from_boost "${from_boost}" PARENT_SCOPE)
endfunction()

# Each `namespace NS { ... }` block (ip, ...) declares NS::NAME.
set(_rest "${_header}")
set(_outside "")
while(_rest MATCHES "namespace ([A-Za-z_][A-Za-z0-9_]*) ?[{]")
  set(_ns "${CMAKE_MATCH_1}")
  set(_open "${CMAKE_MATCH_0}")
  string(FIND "${_rest}" "${_open}" _begin)
  string(SUBSTRING "${_rest}" 0 ${_begin} _head)
  string(APPEND _outside "${_head} ${_open} ")
  string(LENGTH "${_open}" _len)
  math(EXPR _begin "${_begin} + ${_len}")
  string(SUBSTRING "${_rest}" ${_begin} -1 _rest)
  string(FIND "${_rest}" "}" _end)
  if(_end EQUAL -1)
    message(FATAL_ERROR "asio names: namespace ${_ns} in ${HEADER} never closes")
  endif()
  string(SUBSTRING "${_rest}" 0 ${_end} _block)
  _declarations("${_block}" "${_ns}::")
  math(EXPR _end "${_end} + 1")
  string(SUBSTRING "${_rest}" ${_end} -1 _rest)
endwhile()
_declarations("${_outside}${_rest}" "")

# ---------------------------------------------------------------------------
# Compare.

set(_missing "")
set(_excluded_count 0)
foreach(n IN LISTS _names)
  string(MAKE_C_IDENTIFIER "${n}" key)
  set(where "${_kind_${key}}, ${_file_${key}}")
  if(VERBOSE)
    message(STATUS "${n} (${where})")
  endif()
  if(n IN_LIST _excluded)
    math(EXPR _excluded_count "${_excluded_count} + 1")
  elseif(NOT n IN_LIST _declared)
    list(APPEND _missing "${n} (${where})")
  endif()
endforeach()

foreach(n IN LISTS _replaced_by_simasio)
  if(n IN_LIST _from_boost)
    list(APPEND _missing
      "${n} is re-exported from boost::asio, but simasio replaces it")
  elseif(NOT n IN_LIST _declared)
    list(APPEND _missing "${n} (replaced by simasio)")
  endif()
endforeach()

foreach(n IN LISTS _excluded)
  if(NOT n IN_LIST _names)
    list(APPEND _missing
      "${n} is in the exclusion list but Asio no longer declares it")
  endif()
endforeach()

list(LENGTH _names _checked)
list(LENGTH _missing _missing_count)
if(_missing_count GREATER 0)
  list(JOIN _missing "\n  " text)
  message(FATAL_ERROR
    "asio names: ${_checked} checked, ${_excluded_count} excluded, "
    "${_missing_count} missing from ${HEADER}:\n  ${text}\n"
    "Re-export each name in ${HEADER} (guarded like Asio declares it) or "
    "exclude it, with the reason, in cmake/check_asio_names.cmake.")
endif()
message(STATUS
  "asio names: ${_checked} checked, ${_excluded_count} excluded, 0 missing")
