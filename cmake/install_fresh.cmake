# cmake -DBUILD_DIR=<build> -DPREFIX=<prefix> -P install_fresh.cmake
# Installs a build into an empty prefix (whatever was there is removed first).
file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX} RESULT_VARIABLE result
                OUTPUT_QUIET)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "cmake --install ${BUILD_DIR} --prefix ${PREFIX} failed (${result})")
endif()
foreach(file include/simasio/simasio.hpp include/simasio/version.hpp lib/libsimasio.a lib/cmake/simasio/simasioConfig.cmake
             lib/cmake/simasio/simasioConfigVersion.cmake lib/cmake/simasio/simasio-targets.cmake
             lib/cmake/simasio/simasio_sweep.cmake lib/cmake/simasio/simasio_fuzz.cmake
             lib/cmake/simasio/simasio_fuzz_inputs_main.cpp include/simasio/check/fuzz.hpp)
  if(NOT EXISTS ${PREFIX}/${file})
    message(FATAL_ERROR "the install lacks ${file}")
  endif()
endforeach()
message(STATUS "installed into ${PREFIX}")
