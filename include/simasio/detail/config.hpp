// simasio/detail/config.hpp — what differs between the C++ standards simasio's headers compile under
//
// The library is C++20; its public headers are C++17 too (a C++17
// program's tests include them). Branch hints are C++20 attributes.
#ifndef SIMASIO_DETAIL_CONFIG_HPP
#define SIMASIO_DETAIL_CONFIG_HPP

#if __cplusplus >= 202002L
#define SIMASIO_LIKELY [[likely]]
#define SIMASIO_UNLIKELY [[unlikely]]
#else
#define SIMASIO_LIKELY
#define SIMASIO_UNLIKELY
#endif

#endif  // SIMASIO_DETAIL_CONFIG_HPP
