// io_context.cpp — joining a world, running it, stopping and orphaning
#include <simasio/io_context.hpp>

#include <simasio/detail/access.hpp>
#include <simasio/detail/current.hpp>
#include <simasio/detail/escape.hpp>
#include <simasio/detail/sim_context.hpp>
#include <simasio/host.hpp>
#include <simasio/world.hpp>

#include <mutex>
#include <set>

namespace simasio {

namespace {

// Every io_context alive in this program, for the calls a thread with no
// world of its own makes (a library's thread that outlived the scenario).
std::mutex& live_mutex() {
  static std::mutex m;
  return m;
}
std::set<const io_context*>& live_contexts() {
  static auto* live = new std::set<const io_context*>;  // never destroyed: threads may ask at exit
  return *live;
}

// Running a context drives its world, from the thread the world was made
// on (or inside a run of it). A thread with no world is another thread of
// the program: nothing would run there while the world's thread waits on
// it (Boost's cpp11 futures daytime client runs its io_context on a
// std::thread while main() waits on futures), and its run would race that
// thread's use of the world.
void check_runner(const char* used_by) {
  if (detail::current_core() != nullptr) return;
  throw usage_error(std::string("simasio: ") + used_by +
                    " was called from a thread that runs no world (a std::thread of the test program, say, as "
                    "Boost's cpp11/futures/daytime_client runs its io_context on one while main() waits on "
                    "futures). A simulated io_context runs on the thread of its world, and nothing runs there "
                    "while that thread waits, so this run would end at once or race the world's thread. Run such a "
                    "main() as a process of a host (host.spawn_main, in a program linked with simasio::interpose), "
                    "where std::thread starts a simulated thread and futures wait in virtual time; or run the "
                    "io_context from the thread that made its world");
}

}  // namespace

io_context::io_context() : io_context(join_default{}, 1) {}

io_context::io_context(int concurrency_hint) : io_context(join_default{}, concurrency_hint) {}

io_context::io_context(join_default, int concurrency_hint) {
  // Inside a simulated process: the process's host, as a program's
  // io_context is on the machine it runs on.
  if (detail::world_core* core = detail::running_core_tls; core != nullptr && core->in_process()) {
    init(core->process_host(), concurrency_hint);
    return;
  }
  world* w = detail::current_world();
  // Every default context on the thread's default world holds it alive:
  // the world dies with the last of them.
  if (w == nullptr || detail::is_default_world(*w)) {
    w = &detail::acquire_default_world();
    holds_default_world_ = true;
  }
  try {
    init(w->localhost(), concurrency_hint);
  } catch (...) {
    if (holds_default_world_) detail::release_default_world();
    throw;
  }
}

io_context::io_context(host& h, int concurrency_hint) { init(h, concurrency_hint); }

void io_context::init(host& h, int concurrency_hint) {
  register_live();
  host_ = &h;
  detail::install_escape_guard(*this);
  auto* marker = new detail::sim_marker(*this);
  marker->owner = this;
  boost::asio::add_service(*this, marker);
  // Asio's special hints (BOOST_ASIO_CONCURRENCY_HINT_UNSAFE, ...) are negative: one thread.
  detail::world_core& core = detail::access::core(h.get_world());
  core.attach(state_, detail::access::state(h), *this, concurrency_hint > 1 ? concurrency_hint : 1);
  // Made by a process's code: it is that process's, and dies with it.
  if (detail::running_core_tls == &core && core.in_process()) state_.owner = core.calling_owner();
}

void io_context::register_live() {
  std::lock_guard<std::mutex> lock(live_mutex());
  live_contexts().insert(this);
}

io_context::~io_context() {
  {
    std::lock_guard<std::mutex> lock(live_mutex());
    live_contexts().erase(this);
  }
  // Services first (they abandon pending operations and need the world),
  // then the ready queue, then leave the world.
  shutdown();
  if (state_.core != nullptr) state_.core->detach(state_);
  destroy();
  if (holds_default_world_) detail::release_default_world();
}

void io_context::orphan() noexcept {
  shutdown();
  if (state_.core != nullptr) state_.core->detach(state_);
  // The host and the world die next: keep what the usage_error names, and
  // leave no pointer to them behind.
  orphaned_host_ = host_->name();
  orphaned_seed_ = host_->get_world().seed();
  host_ = nullptr;
  state_.host = nullptr;
}

void io_context::throw_orphaned(std::string_view used_by) const {
  throw usage_error("simasio: io_context of host '" + orphaned_host_ + "' outlived its world (seed " +
                    std::to_string(orphaned_seed_) + ") and was used afterwards by " + std::string(used_by) +
                    "; its pending work was destroyed with the world: destroy io_contexts and I/O objects before "
                    "their world, or keep the world alive");
}

world& io_context::get_world() {
  if (host_ == nullptr) [[unlikely]] throw_orphaned("io_context::get_world");
  return host_->get_world();
}

io_context::count_type io_context::drive(const detail::run_limits& limits, const char* used_by) {
  check_caller(used_by);
  detail::world_core& core = sim_core(used_by);
  check_runner(used_by);  // after sim_core: an orphaned context says so first
  // Inside a simulated process the process waits (it is the thread that
  // runs this context); elsewhere the call drives the world.
  const detail::run_result r = core.in_process() ? core.process_run(limits) : core.run(limits);
  // Asio: a run that ends for lack of work leaves the context stopped.
  if (r.end == detail::run_end::target_idle) core.stop_context(state_);
  return r.target_handlers;
}

io_context::count_type io_context::run() {
  detail::run_limits limits;
  limits.target = &state_;
  return drive(limits, "io_context::run");
}

io_context::count_type io_context::run_one() {
  detail::run_limits limits;
  limits.target = &state_;
  limits.target_max = 1;
  return drive(limits, "io_context::run_one");
}

io_context::count_type io_context::run_for_ns(duration rel, count_type max) {
  const char* used_by = max == 1 ? "io_context::run_one_for" : "io_context::run_for";
  check_caller(used_by);
  detail::world_core& core = sim_core(used_by);
  detail::run_limits limits;
  limits.target = &state_;
  limits.target_max = max;
  limits.deadline = detail::deadline_after(core.now(), rel);
  return drive(limits, used_by);
}

io_context::count_type io_context::poll() { return poll_up_to(max_count()); }

io_context::count_type io_context::poll_one() { return poll_up_to(1); }

io_context::count_type io_context::poll_up_to(count_type max) {
  const char* used_by = max == 1 ? "io_context::poll_one" : "io_context::poll";
  check_caller(used_by);
  detail::world_core& core = sim_core(used_by);
  check_runner(used_by);
  if (core.in_process()) {
    // A scheduling point, work or not: a process polling in a loop lets the
    // world take turns (and is a runaway if it never blocks).
    const bool runs = state_.work > 0 && !state_.stopped;
    const count_type n = core.process_poll(state_, runs ? max : 0);
    if (state_.work <= 0) core.stop_context(state_);
    return n;
  }
  if (state_.work <= 0) {  // Asio: nothing to do leaves the context stopped
    core.stop_context(state_);
    return 0;
  }
  if (state_.stopped) return 0;
  const count_type n = core.in_process() ? core.process_poll(state_, max) : core.poll(state_, max);
  if (state_.work <= 0) core.stop_context(state_);  // Asio: out of work means stopped
  return n;
}

void io_context::stop() {
  check_caller("io_context::stop");
  detail::world_core& core = sim_core("io_context::stop");
  core.check_thread(state_);
  core.stop_context(state_);
}

void io_context::restart() {
  check_caller("io_context::restart");
  detail::world_core& core = sim_core("io_context::restart");
  core.check_thread(state_);
  core.restart_context(state_);
}



void io_context::check_caller(const char* used_by) const {
  if (detail::current_core() != nullptr) return;  // a thread with a world: where simasio's objects live
  bool alive = false;
  {
    std::lock_guard<std::mutex> lock(live_mutex());
    alive = live_contexts().count(this) != 0;
  }
  if (!alive)
    throw usage_error(std::string("simasio: ") + used_by +
                      " was called on an io_context that no longer exists, from a thread that runs no world (a "
                      "library's own thread, say, that kept a reference after the scenario returned and its "
                      "io_context was destroyed). A simulated io_context belongs to the thread that runs its world: "
                      "stop that thread's work before the scenario ends, or run the library's threads inside a "
                      "process of a host (host.spawn, with simasio::interpose), where they are simulated threads");
}

void io_context::notify_fork(boost::asio::execution_context::fork_event event) {
  const char* which = event == fork_prepare ? "fork_prepare" : event == fork_parent ? "fork_parent" : "fork_child";
  throw usage_error(std::string("simasio: io_context::notify_fork(") + which +
                    ") was called: a process cannot fork inside a simulation (the world, its hosts and their "
                    "sockets exist in this process only). Model a daemon's child as another io_context or host "
                    "of the world (world::add_host, host::on_boot) and leave fork() out of the simulated build");
}

namespace detail {
io_context& sim_context_of(boost::asio::execution_context& ctx, const char* object) {
  if (boost::asio::has_service<sim_marker>(ctx)) {
    if (io_context* owner = boost::asio::use_service<sim_marker>(ctx).owner) return *owner;
  }
  throw escape_error(std::string("simasio: a simasio::") + object +
                     " was bound to an execution context that is not a simasio::io_context (a real "
                     "boost::asio::io_context, thread_pool or system_context?). Simulated I/O objects "
                     "only run inside a simasio::world: create them from a simasio::io_context or its "
                     "executor.");
}

void throw_orphaned(const context_state& ctx, const char* kind) {
  access::throw_orphaned(*static_cast<const io_context*>(ctx.exec), std::string("a ") + kind);
}
}  // namespace detail

}  // namespace simasio
