// report_fuzz.cpp — what a failure's report reads and writes: an isolated
// seed's message to its parent, and the JSON and HTML escapers of the trace files
//
// The input's first byte picks the part:
//  - 0: the bytes are a seed's process's message: the parent's decoder
//    reads any bytes without a crash, an exception or memory beyond the
//    message's own size, and what it read encodes and decodes back to itself;
//  - 1: the bytes are text for a JSON string: json_quoted gives valid
//    UTF-8, quoted, with no raw control character, '"' or '<' inside;
//  - 2: the bytes are text for HTML: html_escaped leaves no '<', '>', '"'
//    or '\'' and every '&' starts an entity.
#include "fuzz_support.hpp"

#include "../src/check/sweep.hpp"

#include <simasio/detail/text_escape.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace {

using simasio_fuzz::broken;

// Whether @p s is valid UTF-8 (no overlong forms, surrogates or values past U+10FFFF).
bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c < 0x80                 ? 1
                          : c >= 0xC2 && c <= 0xDF ? 2
                          : c >= 0xE0 && c <= 0xEF ? 3
                          : c >= 0xF0 && c <= 0xF4 ? 4
                                                   : 0;
    if (n == 0 || i + n > s.size()) return false;
    std::uint32_t cp = n == 1 ? c : c & (0x7F >> n);
    for (std::size_t k = 1; k < n; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if ((b & 0xC0) != 0x80) return false;
      cp = cp << 6 | (b & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
      return false;
    i += n;
  }
  return true;
}

void child_message(std::string_view bytes) {
  simasio::detail::isolation::child_outcome c;
  c.message.assign(bytes);
  c.complete = true;
  simasio::check_impl::run_outcome o;
  try {
    o = simasio::check_impl::from_child(c);
  } catch (const std::exception& e) {
    broken(std::string("the decoder threw: ") + e.what());
  }
  if (o.log.size() + o.names.size() + o.notes.packets.size() + o.notes.logs.size() + o.reached.size() > bytes.size())
    broken("the decoder made more items than the message has bytes");
  const std::string again = simasio::check_impl::encode(o);
  simasio::detail::isolation::child_outcome c2;
  c2.message = again;
  c2.complete = true;
  if (simasio::check_impl::encode(simasio::check_impl::from_child(c2)) != again)
    broken("a decoded message does not encode and decode back to itself");
}

void json(std::string_view text) {
  const std::string q = simasio::detail::json_quoted(text);
  if (q.size() < 2 || q.front() != '"' || q.back() != '"') broken("json_quoted: not quoted: " + q);
  if (!valid_utf8(q)) broken("json_quoted: not valid UTF-8");
  for (std::size_t i = 1; i + 1 < q.size(); ++i) {
    const auto c = static_cast<unsigned char>(q[i]);
    if (c < 0x20 || c == 0x7f || c == '<') broken("json_quoted: a raw control byte or '<'");
    if (c == '\\') {
      ++i;  // the escaped character
      if (i + 1 >= q.size() || std::string_view("\"\\nu").find(q[i]) == std::string_view::npos)
        broken("json_quoted: a bad escape");
    } else if (c == '"') {
      broken("json_quoted: an unescaped quote inside");
    }
  }
}

void html(std::string_view text) {
  const std::string h = simasio::detail::html_escaped(text);
  for (std::size_t i = 0; i < h.size(); ++i) {
    if (std::string_view("<>\"'").find(h[i]) != std::string_view::npos) broken("html_escaped: a raw markup character");
    if (h[i] == '&') {
      const std::string_view rest = std::string_view(h).substr(i);
      bool entity = false;
      for (std::string_view e : {"&lt;", "&gt;", "&amp;", "&quot;", "&#39;"})
        entity = entity || rest.substr(0, e.size()) == e;
      if (!entity) broken("html_escaped: an '&' that starts no entity");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0: child_message(rest); break;
    case 1: json(rest); break;
    default: html(rest); break;
  }
  return 0;
}
