// simasio/detail/format.hpp — small formatting helpers for messages
#ifndef SIMASIO_DETAIL_FORMAT_HPP
#define SIMASIO_DETAIL_FORMAT_HPP

#include <simasio/world_options.hpp>

#include <string>

namespace simasio::detail {

// Virtual time as seconds: "0.229s" when whole milliseconds, else "0.229000415s".
std::string format_time(duration t);

// A signal as messages name it: "SIGABRT (Aborted)".
std::string signal_name(int signal);

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_FORMAT_HPP
