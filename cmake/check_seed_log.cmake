# cmake -DLOG=<file> -DSEEDS=N -P check_seed_log.cmake
#
# The seeds a sharded sweep wrote to LOG (one a line, from every shard):
# each of 0..N-1 exactly once.
file(STRINGS "${LOG}" all)
list(LENGTH all total)
set(unique ${all})
list(REMOVE_DUPLICATES unique)
list(LENGTH unique distinct)
if(NOT total EQUAL SEEDS OR NOT distinct EQUAL SEEDS)
  message(FATAL_ERROR "the shards ran ${total} seeds (${distinct} distinct), not each of ${SEEDS} once: ${all}")
endif()
message(STATUS "each of ${SEEDS} seeds ran once")
