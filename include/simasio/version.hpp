// simasio/version.hpp — the library's version (CMakeLists.txt reads it from here)
#ifndef SIMASIO_VERSION_HPP
#define SIMASIO_VERSION_HPP

/// The major part of the version.
#define SIMASIO_VERSION_MAJOR 0
/// The minor part of the version.
#define SIMASIO_VERSION_MINOR 1
/// The patch part of the version.
#define SIMASIO_VERSION_PATCH 0
/// "MAJOR.MINOR.PATCH"
#define SIMASIO_VERSION_STRING "0.1.0"
/// MAJOR * 10000 + MINOR * 100 + PATCH, for `#if` comparisons.
#define SIMASIO_VERSION (SIMASIO_VERSION_MAJOR * 10000 + SIMASIO_VERSION_MINOR * 100 + SIMASIO_VERSION_PATCH)

#endif  // SIMASIO_VERSION_HPP
