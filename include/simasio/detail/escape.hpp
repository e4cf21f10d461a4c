// simasio/detail/escape.hpp — finding real Asio I/O objects on a simulated context
#ifndef SIMASIO_DETAIL_ESCAPE_HPP
#define SIMASIO_DETAIL_ESCAPE_HPP

namespace boost::asio {
class execution_context;
}

namespace simasio::detail {

// Installs Asio's scheduler service in non-threaded mode, so that a real
// I/O object created on ctx later can never start a background thread.
void install_escape_guard(boost::asio::execution_context& ctx);

// The kind of real Asio I/O object bound to ctx ("boost::asio::steady_timer",
// ...), or nullptr when there is none.
const char* find_escape(boost::asio::execution_context& ctx) noexcept;

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_ESCAPE_HPP
