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

// Asio's own scheduler on ctx (the one install_escape_guard installed) once
// a real Asio timer has created Asio's reactor there; nullptr before.
void* real_timer_scheduler(boost::asio::execution_context& ctx) noexcept;

// Runs what Asio's services on that scheduler have completed (cancelled
// waits of Asio's own timers), without blocking. Completions reach their
// handlers through the handlers' executors, so into the simulation.
void poll_real_timers(void* scheduler);

// Whether Asio's scheduler has completions queued for poll_real_timers (a
// wait that a cancel or a new expiry ended): no lock, no system call. A
// wait's real expiry is not among them: real time does not pass in the
// simulation, and the interposition library's virtual one is driven from
// the world's own timer queue (set_real_timerfd).
bool real_timers_ready(void* scheduler) noexcept;

// Whether Asio's scheduler still has outstanding work: a real timer wait
// that only real time can end.
bool real_timer_waits_pending(void* scheduler);

// Which of Asio's own timers ctx holds ("boost::asio::steady_timer", ...).
const char* real_timer_kind(boost::asio::execution_context& ctx) noexcept;

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_ESCAPE_HPP
