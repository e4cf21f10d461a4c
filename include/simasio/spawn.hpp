// simasio/spawn.hpp — Asio's stackful coroutines (spawn, yield_context) in simasio::asio
//
// <simasio/asio.hpp> leaves <boost/asio/spawn.hpp> out: it would double
// every translation unit's compile time for the few that use it. Include
// this header, or Boost's own <boost/asio/spawn.hpp>, anywhere (before or
// after <simasio/asio.hpp>) to use net::spawn, net::basic_yield_context and
// net::yield_context; they run on simasio's executors as Boost's do on Asio's.
#ifndef SIMASIO_SPAWN_HPP
#define SIMASIO_SPAWN_HPP

#include <boost/asio/spawn.hpp>
#include <simasio/asio.hpp>

// When <simasio/asio.hpp> came first, it already has the names (its spawn
// finds Boost's at the call).
#if !defined(SIMASIO_DETAIL_LATE_SPAWN)
namespace simasio::asio {
using boost::asio::basic_yield_context;
using boost::asio::spawn;
using boost::asio::yield_context;
}  // namespace simasio::asio
#endif

#endif  // SIMASIO_SPAWN_HPP
