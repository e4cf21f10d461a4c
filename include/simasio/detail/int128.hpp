// simasio/detail/int128.hpp — 128-bit integers for exact products and quotients
#ifndef SIMASIO_DETAIL_INT128_HPP
#define SIMASIO_DETAIL_INT128_HPP

namespace simasio::detail {

// GCC's and Clang's 128-bit integers. `__extension__` keeps users' builds
// quiet under -Wpedantic (ISO C++ has no such type).
__extension__ typedef __int128 int128;
__extension__ typedef unsigned __int128 uint128;

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_INT128_HPP
