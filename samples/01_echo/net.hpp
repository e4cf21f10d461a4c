// net.hpp — the one line a user changes: which Asio the service is built on.
//
// The echo service (echo.hpp, echo.cpp) names everything through `net::`.
// Built with ECHO_SIMULATED it runs on simasio; without it, on Boost.Asio.
#pragma once

#if defined(ECHO_SIMULATED)
#include <simasio/asio.hpp>
namespace net = simasio::asio;
#else
#include <boost/asio.hpp>
namespace net = boost::asio;
#endif
