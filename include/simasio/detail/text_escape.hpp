// simasio/detail/text_escape.hpp — text made safe for the trace files: JSON strings and HTML
#ifndef SIMASIO_DETAIL_TEXT_ESCAPE_HPP
#define SIMASIO_DETAIL_TEXT_ESCAPE_HPP

#include <string>
#include <string_view>

namespace simasio::detail {

// @p s as a JSON string, quotes included: valid UTF-8 whatever the bytes
// (a byte that starts no valid UTF-8 sequence becomes U+FFFD), control
// characters as \u escapes, and '<' as \u003c so it is safe inside an
// HTML <script>.
std::string json_quoted(std::string_view s);

// @p s with '<', '>', '&', '"' and '\'' as HTML entities.
std::string html_escaped(std::string_view s);

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_TEXT_ESCAPE_HPP
