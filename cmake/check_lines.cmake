# cmake -DFILE=<path> -DMAX=<n> -P check_lines.cmake — FILE has at most MAX lines
# (the README is a front page; the rest of the documentation is the site).
file(STRINGS "${FILE}" lines)
list(LENGTH lines count)
if(count GREATER MAX)
  message(FATAL_ERROR "${FILE} has ${count} lines, more than ${MAX}: move the detail into a page of docs/ and link it")
endif()
message(STATUS "${FILE}: ${count} lines (at most ${MAX})")
