// real_symbol.hpp — the next definition of an interposed function (not installed)
#ifndef SIMASIO_SRC_INTERPOSE_REAL_SYMBOL_HPP
#define SIMASIO_SRC_INTERPOSE_REAL_SYMBOL_HPP

#include <type_traits>

#include <dlfcn.h>

namespace simasio::detail::interpose {

// The next definition of a function (libc's, or a sanitizer's interceptor
// in front of it), looked up on first use: a plain pointer, no guarded
// static (whose lock could itself be interposed). Looking it up twice is
// harmless.
template <class F>
F next_symbol_of(F& slot, const char* name) noexcept {
  if (slot == nullptr) slot = reinterpret_cast<F>(::dlsym(RTLD_NEXT, name));
  return slot;
}

}  // namespace simasio::detail::interpose

// In an interposed function: `real_<name>`, the next definition of <name>.
#define SIMASIO_REAL(name, type)                                  \
  static std::type_identity_t<type> real_##name##_slot = nullptr; \
  const auto real_##name = ::simasio::detail::interpose::next_symbol_of(real_##name##_slot, #name)

#endif  // SIMASIO_SRC_INTERPOSE_REAL_SYMBOL_HPP
