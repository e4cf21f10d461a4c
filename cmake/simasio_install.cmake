# Installation and export: headers, the library, the test-framework glue
# targets and a CMake package (simasioConfig.cmake + version file), so that
#   find_package(simasio CONFIG REQUIRED [COMPONENTS boost_test gtest ssl])
# gives simasio::simasio, simasio::interpose (Linux), simasio::boost_test,
# simasio::gtest and simasio::ssl, and
# simasio_add_sweep(). The same package is exported from the build tree
# (point simasio_DIR at the build directory); add_subdirectory and
# FetchContent users get the same names from the ALIAS targets.
include(CMakePackageConfigHelpers)

set(SIMASIO_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/simasio CACHE STRING
    "Where simasio's CMake package files are installed, relative to the prefix")

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/simasio DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS simasio EXPORT simasio-targets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# simasio::interpose is an object file, installed beside the library.
if(TARGET simasio_interpose)
  install(TARGETS simasio_interpose EXPORT simasio-targets
          OBJECTS DESTINATION ${CMAKE_INSTALL_LIBDIR}/simasio-interpose)
endif()
# simasio::ssl: an interface target over simasio (which links OpenSSL).
if(TARGET simasio_ssl)
  install(TARGETS simasio_ssl EXPORT simasio-targets)
endif()
install(EXPORT simasio-targets NAMESPACE simasio:: DESTINATION ${SIMASIO_INSTALL_CMAKEDIR})
export(EXPORT simasio-targets NAMESPACE simasio:: FILE ${PROJECT_BINARY_DIR}/simasio-targets.cmake)

# Each glue target in its own file: the package loads it only when its
# test framework is found in the consumer's build.
foreach(glue boost_test gtest)
  if(TARGET simasio_${glue})
    string(REPLACE "_" "-" file ${glue})
    install(TARGETS simasio_${glue} EXPORT simasio-${file}-targets)
    install(EXPORT simasio-${file}-targets NAMESPACE simasio:: DESTINATION ${SIMASIO_INSTALL_CMAKEDIR})
    export(EXPORT simasio-${file}-targets NAMESPACE simasio:: FILE ${PROJECT_BINARY_DIR}/simasio-${file}-targets.cmake)
  endif()
endforeach()

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/simasioConfig.cmake.in
  ${PROJECT_BINARY_DIR}/simasioConfig.cmake INSTALL_DESTINATION ${SIMASIO_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/simasioConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
foreach(file simasio_sweep.cmake simasio_fuzz.cmake simasio_fuzz_inputs_main.cpp)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${file} ${PROJECT_BINARY_DIR}/${file} COPYONLY)
endforeach()
install(FILES ${PROJECT_BINARY_DIR}/simasioConfig.cmake ${PROJECT_BINARY_DIR}/simasioConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/simasio_sweep.cmake ${PROJECT_SOURCE_DIR}/cmake/simasio_fuzz.cmake
              ${PROJECT_SOURCE_DIR}/cmake/simasio_fuzz_inputs_main.cpp
        DESTINATION ${SIMASIO_INSTALL_CMAKEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/CHANGELOG.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
