// simasio/detail/artifact_file.hpp — failure artifacts written whole or not at all
#ifndef SIMASIO_DETAIL_ARTIFACT_FILE_HPP
#define SIMASIO_DETAIL_ARTIFACT_FILE_HPP

#include <string>
#include <string_view>

namespace simasio::detail {

// Writes @p bytes to @p path (created or truncated), checking every write
// and the close. @throws artifact_error naming the file, its directory and
// errno when any of them fails; the partial file is removed first.
void write_artifact(const std::string& path, std::string_view bytes);

// Creates directory @p dir (and its parents) if missing. @throws
// artifact_error naming it and errno when it cannot be made.
void make_artifact_dir(const std::string& dir);

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_ARTIFACT_FILE_HPP
