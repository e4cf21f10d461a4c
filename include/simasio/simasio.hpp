// simasio/simasio.hpp — everything of simasio
//
// A map of the code (data flows one way: scenario -> world -> handlers):
//
//   world.hpp, world_options.hpp  the universe: hosts, virtual time, run/run_for/run_until,
//                                 invariants (always), seeded draws, trace hash
//   host.hpp                      a machine: address, clock skew, crash/restart, boot, spawn
//   process.hpp                   a simulated process (host::spawn): a main() on its own stack,
//                                 its standard streams (write_stdin, stdout_text)
//   posix/basic_stream_descriptor.hpp
//                                 posix::stream_descriptor over a process's standard streams
//   io_context.hpp                the drop-in io_context and its standard executor
//   clock.hpp                     simasio::steady_clock / system_clock (virtual time)
//   basic_waitable_timer.hpp      steady_timer, system_timer, high_resolution_timer
//   net/network.hpp               world::net(): links, loss, partitions, holds, fault rules
//   net/fault_rule.hpp            faults as data: packet_view, verdict, rule_guard
//   basic_socket.hpp, basic_stream_socket.hpp, basic_datagram_socket.hpp,
//   basic_socket_acceptor.hpp     simulated sockets with Asio's members
//   ip/tcp.hpp, ip/udp.hpp        protocol façades; ip/basic_resolver.hpp resolves host names
//   connect.hpp                   connect/async_connect over endpoint sequences
//   disk.hpp                      host::disk(): files and directories, page cache, power-loss
//                                 model, disk_config (latency, queue, capacity, faults)
//   file_base.hpp, basic_file.hpp, basic_random_access_file.hpp, basic_stream_file.hpp
//                                 Asio's file classes on the host's simulated disk
//   asio.hpp                      namespace simasio::asio: Asio's names with simasio's objects
//   spawn.hpp                     net::spawn and yield_context (Boost's stackful coroutines;
//                                 include it yourself: it is not part of this header)
//   check/check.hpp               check (seed sweeps, parallel, sharded), shrinking, replay
//   check/history.hpp, check/linearizability.hpp, check/models.hpp
//                                 recorded client operations; check_linearizable against a
//                                 sequential model (models::register_model, or your own)
//   check/model.hpp               design models: check_model (safety, deadlock, liveness),
//                                 world::refines (the code held to the design)
//   check/fuzz.hpp                fuzzer-guided exploration: SIMASIO_FUZZ_SCENARIO (include it
//                                 yourself, in a libFuzzer program)
//   random/tape_file.hpp          choice tapes on disk (SIMASIO_TAPE)
//   log/log.hpp                   spdlog loggers per host, stamped with virtual time
//   boost_test.hpp, gtest.hpp     SIMASIO_TEST_CASE / SIMASIO_TEST (include them yourself)
//   random/rng.hpp, tape.hpp      our PRNG, range reduction, the choice tape
//   trace/trace.hpp               trace events and the rolling hash
//   error.hpp                     simasio::error codes and exceptions
//   version.hpp                   SIMASIO_VERSION_* (the CMake project version is read from it)
//   detail/world_core.hpp         the scheduler loop, event heap, work accounting
//   detail/access.hpp             simasio's own way into world, host and io_context internals
//   detail/net/                   the network stack, bottom up: link (hosts, links, faults,
//                                 packets), socket_table, udp, tcp, socket_ops (what sockets call)
//   detail/disk/disk_model.hpp    the disk: namespace, inodes, unsynced changes, queue, faults
//   detail/file_service.hpp       files of one io_context: pending operations, blocking calls
//   detail/                       internals (operations, services, handler work, escapes)
#ifndef SIMASIO_SIMASIO_HPP
#define SIMASIO_SIMASIO_HPP

#include <simasio/any_io_executor.hpp>
#include <simasio/basic_datagram_socket.hpp>
#include <simasio/basic_random_access_file.hpp>
#include <simasio/basic_stream_file.hpp>
#include <simasio/disk.hpp>
#include <simasio/basic_signal_set.hpp>
#include <simasio/basic_socket_acceptor.hpp>
#include <simasio/basic_stream_socket.hpp>
#include <simasio/basic_waitable_timer.hpp>
#include <simasio/connect.hpp>
#include <simasio/ip/tcp.hpp>
#include <simasio/ip/udp.hpp>
#include <simasio/net/network.hpp>
#include <simasio/check/check.hpp>
#include <simasio/check/history.hpp>
#include <simasio/check/linearizability.hpp>
#include <simasio/check/model.hpp>
#include <simasio/check/models.hpp>
#include <simasio/clock.hpp>
#include <simasio/error.hpp>
#include <simasio/host.hpp>
#include <simasio/io_context.hpp>
#include <simasio/log/log.hpp>
#include <simasio/process.hpp>
#include <simasio/posix/basic_stream_descriptor.hpp>
#include <simasio/random/rng.hpp>
#include <simasio/random/tape.hpp>
#include <simasio/random/tape_file.hpp>
#include <simasio/trace/export.hpp>
#include <simasio/trace/trace.hpp>
#include <simasio/version.hpp>
#include <simasio/world.hpp>
#include <simasio/world_options.hpp>

#endif  // SIMASIO_SIMASIO_HPP
