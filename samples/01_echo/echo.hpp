// echo.hpp — an echo server and a client that checks every echo, written
// once against `net::` (see net.hpp).
#pragma once

#include "net.hpp"

#include <cstddef>

namespace echo {

// Accepts connections forever; each session echoes until the peer closes.
net::awaitable<void> serve(net::ip::tcp::acceptor acceptor);

// Connects, sends `messages` messages of varied sizes, reads each echo back
// and compares it byte for byte. Returns the number of bytes echoed intact;
// throws std::runtime_error on a mismatch.
net::awaitable<std::size_t> exchange(net::ip::tcp::endpoint server, int messages);

}  // namespace echo
