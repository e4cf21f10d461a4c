# include(render_dom.cmake); render_dom(<chromium> <profile dir> <html file> <result var>)
#
# The DOM of a page after its scripts ran, as headless Chromium renders it
# (no network, no first-run work, a profile of its own under the test's
# directory); the trace pages' checks assert on it.
function(render_dom chromium profile page result)
  execute_process(COMMAND "${chromium}" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run
                          --disable-background-networking --disable-component-update --disable-sync
                          --user-data-dir=${profile} --dump-dom "file://${page}"
                  OUTPUT_VARIABLE dom ERROR_VARIABLE ignored RESULT_VARIABLE rc TIMEOUT 120)
  set(${result} "${dom}" PARENT_SCOPE)
  set(${result}_rc "${rc}" PARENT_SCOPE)
endfunction()
