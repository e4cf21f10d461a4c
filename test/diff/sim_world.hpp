// sim_world.hpp — the world a simulated side runs in: the kernel's settings the real side found
#ifndef SIMASIO_TEST_DIFF_SIM_WORLD_HPP
#define SIMASIO_TEST_DIFF_SIM_WORLD_HPP

#include "observe.hpp"

#include <simasio/simasio.hpp>

namespace simasio_diff {

// Seed and MTU of the run; no partial writes or split segments (as on loopback).
simasio::world_options world_options_for(const run_settings& s);
// The kernel's TCP buffer sizes, as its profile says.
void set_kernel_buffers(simasio::world& w, const kernel_profile& k);

}  // namespace simasio_diff

#endif  // SIMASIO_TEST_DIFF_SIM_WORLD_HPP
