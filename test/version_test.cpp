// version_test.cpp — the version macros are the CMake project's version.
#include <simasio/version.hpp>

#include <cstdio>
#include <cstring>
#include <string>

int main() {
  const std::string parts = std::to_string(SIMASIO_VERSION_MAJOR) + "." + std::to_string(SIMASIO_VERSION_MINOR) + "." +
                            std::to_string(SIMASIO_VERSION_PATCH);
  const bool ok = parts == SIMASIO_VERSION_STRING && parts == SIMASIO_CMAKE_VERSION &&
                  SIMASIO_VERSION == SIMASIO_VERSION_MAJOR * 10000 + SIMASIO_VERSION_MINOR * 100 + SIMASIO_VERSION_PATCH;
  std::printf("version.hpp %s (parts %s), CMake project %s: %s\n", SIMASIO_VERSION_STRING, parts.c_str(),
              SIMASIO_CMAKE_VERSION, ok ? "match" : "MISMATCH");
  return ok ? 0 : 1;
}
