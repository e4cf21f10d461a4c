// doc_root.hpp — a directory of files for Beast's example HTTP servers to serve
#ifndef SIMASIO_CONFORMANCE_DOC_ROOT_HPP
#define SIMASIO_CONFORMANCE_DOC_ROOT_HPP

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace conformance {

/// The page every HTTP example serves and every client must print.
inline const std::string page = "<html>simasio conformance page</html>";

/// A directory holding index.html (the page), made once per process.
inline const std::string& doc_root() {
  static const std::string dir = [] {
    const auto d = std::filesystem::temp_directory_path() / ("simasio-conformance-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    std::ofstream(d / "index.html") << page;
    return d.string();
  }();
  return dir;
}

}  // namespace conformance

#endif  // SIMASIO_CONFORMANCE_DOC_ROOT_HPP
