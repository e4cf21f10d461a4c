// simasio/detail/refused.hpp — members Asio has that a simulation refuses at compile time
#ifndef SIMASIO_DETAIL_REFUSED_HPP
#define SIMASIO_DETAIL_REFUSED_HPP

namespace simasio::detail {

// For a static_assert that fires only when the member is used.
template <typename T>
inline constexpr bool refused_v = sizeof(T) == 0;
template <typename... T>
inline constexpr bool refused_pack_v = false;

// The message of a member that adopts or gives up a real descriptor.
#define SIMASIO_REFUSED_NATIVE_HANDLE(what)                                                               \
  "simasio: " what " a native handle is not simulated: a simulated socket has no descriptor of the real " \
  "OS to adopt or give up. Open, bind and connect the socket on its simulated context instead"

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_REFUSED_HPP
