// world.cpp — hosts, runs and lifetime of a world
#include <simasio/world.hpp>
#include <simasio/disk.hpp>
#include <simasio/detail/disk/disk_model.hpp>
#include <simasio/detail/file_service.hpp>

#include <simasio/detail/access.hpp>
#include <simasio/detail/current.hpp>
#include <simasio/detail/format.hpp>
#include <simasio/error.hpp>
#include <simasio/io_context.hpp>
#include <simasio/detail/net/socket_ops.hpp>
#include <simasio/detail/signal_service.hpp>

#include <cmath>

#include "../posix/descriptors.hpp"

namespace simasio {

world::world(std::uint64_t seed) : world(world_options{.seed = seed}) {}

world::world(world_options options)
    : core_(std::make_unique<detail::world_core>(options)),
      net_(std::make_unique<detail::socket_ops>(*core_)),
      net_facade_(*net_) {
  net_->link().default_link = core_->options().link;
  core_->host_namer = [this](std::uint32_t id) {
    return id < hosts_.size() ? hosts_[id]->name() : "#" + std::to_string(id);
  };
  core_->close_descriptors = [this](std::uint32_t owner) { detail::posix::close_owned(*core_, owner); };
  core_->close_owned = [this](std::uint32_t owner) {
    detail::posix::close_owned(*core_, owner);
    net_->close_owned(owner);
    for (auto& h : hosts_)
      if (auto& disk = detail::access::state(*h).disk) detail::interpose::forget_posix_files(*disk, true, owner);
  };
  detail::register_live_world(*this);
}

namespace detail {
void detach_log(log_state& st) noexcept;
}

world::~world() {
  // Processes still alive are unwound first, while everything their
  // destructors may touch exists.
  core_->kill_all_processes();
  detail::posix::forget_world(*core_);  // what processes left open, while the network is there
  detail::unregister_live_world(*this);
  if (log_) detail::detach_log(*log_);
  // Contexts the user still owns outlive us: take their pending work away
  // now, while the world exists, and cut them loose.
  for (detail::context_state* ctx : core_->contexts())
    if (ctx != nullptr) static_cast<io_context*>(ctx->exec)->orphan();
  hosts_.clear();
}

host& world::make_host(std::string name, boost::asio::ip::address address) {
  if (name.empty()) throw usage_error("simasio: world::add_host needs a non-empty host name");
  if (host_names_.count(name) != 0)
    throw usage_error("simasio: world::add_host: a host named '" + name + "' already exists");
  // 127.0.0.1 means "this host" on every host, 0.0.0.0 means "any", and a
  // multicast address names a group: none of them can be a machine's own.
  if (address.is_loopback() || address.is_unspecified() || address.is_multicast())
    throw usage_error("simasio: world::add_host: " + address.to_string() + " cannot be the address of host '" + name +
                      "' (it is a " +
                      (address.is_loopback() ? "loopback" : address.is_unspecified() ? "wildcard" : "multicast") +
                      " address; every host has 127.0.0.1 already)");
  if (auto it = host_addresses_.find(address); it != host_addresses_.end())
    throw usage_error("simasio: world::add_host: address " + address.to_string() + " of '" + name +
                      "' is already used by host '" + hosts_[it->second]->name() + "'");
  const auto id = static_cast<std::uint32_t>(hosts_.size());
  host_names_.emplace(name, id);
  host_addresses_.emplace(address, id);
  hosts_.push_back(std::unique_ptr<host>(new host(*this, id, std::move(name), address)));
  net_->add_host(id, detail::access::state(*hosts_.back()), address);
  host& h = *hosts_.back();
  // The fault mix's clock drift: each host its own, from its own stream;
  // size, then direction, so the polite draws are no drift at all.
  if (const std::int64_t bound = core_->faults().drift_ppb; bound > 0) {
    rng& r = core_->stream("swarm:" + h.name(), choice_purpose::swarm);
    const auto size = static_cast<std::int64_t>(r.between(std::uint64_t{0}, static_cast<std::uint64_t>(bound)));
    const std::int64_t ppb = r.below(2) == 1 ? -size : size;
    if (ppb != 0) h.set_clock(duration{0}, static_cast<double>(ppb) / 1000.0);
  }
  return h;
}

namespace {
// 198.18.0.0/15 (RFC 2544, benchmarking): never routed to a real machine,
// so a packet that escaped the simulation reaches nobody.
constexpr std::uint32_t default_base = 0xC6120000u;  // 198.18.0.0
}  // namespace

// The next default address not taken by an explicit add_host(name, address):
// add_host counts up from the bottom of the range, localhost() down from its
// top. 198.18.0.0 and 198.19.255.255 stay unused.
boost::asio::ip::address world::next_default_address(bool from_top, const std::string& name) {
  while (default_up_ + 1 < default_down_) {
    const std::uint32_t n = from_top ? --default_down_ : ++default_up_;
    const boost::asio::ip::address a = boost::asio::ip::address_v4(default_base + n);
    if (host_addresses_.count(a) == 0) return a;
  }
  throw usage_error("simasio: world::add_host(\"" + name +
                    "\"): the default addresses 198.18.0.1 - 198.19.255.254 are used up (131070 hosts); "
                    "give this host one: add_host(name, address)");
}

host& world::add_host(std::string name) {
  if (name.empty() || host_names_.count(name) != 0) return make_host(std::move(name), {});  // the name's error
  const boost::asio::ip::address address = next_default_address(false, name);
  return make_host(std::move(name), address);
}

host& world::add_host(std::string name, boost::asio::ip::address address) {
  return make_host(std::move(name), address);
}

host& world::get_host(std::string_view name) {
  for (const auto& h : hosts_)
    if (h->name() == name) return *h;
  std::string known;
  for (const auto& h : hosts_) known += (known.empty() ? "'" : ", '") + h->name() + "'";
  throw usage_error("simasio: world::get_host: no host named '" + std::string(name) + "' (hosts: " +
                    (known.empty() ? "none" : known) + ")");
}

host& world::localhost() {
  if (localhost_ == nullptr) {
    const boost::asio::ip::address address = next_default_address(true, "localhost");
    localhost_ = &make_host("localhost", address);
  }
  return *localhost_;
}

std::vector<host*> world::hosts() const {
  std::vector<host*> out;
  out.reserve(hosts_.size());
  for (const auto& h : hosts_) out.push_back(h.get());
  return out;
}

std::size_t world::run() { return core_->run({}).handlers; }

std::size_t world::run_for(duration d) {
  detail::run_limits limits;
  limits.deadline = detail::deadline_after(core_->now(), d);
  return core_->run(limits).handlers;
}

bool world::run_until(std::function<bool()> done, duration timeout) {
  detail::run_limits limits;
  limits.deadline = detail::deadline_after(core_->now(), timeout);
  limits.until = &done;
  return core_->run(limits).end == detail::run_end::done;
}

std::string world::pending_report() const {
  return std::string(stalled() ? "stalled " : "") + core_->diagnostics();
}

void world::always(std::string name, std::function<bool()> invariant) {
  core_->always(std::move(name), std::move(invariant));
}

void world::sometimes(std::string name, std::function<bool()> condition) {
  core_->sometimes(std::move(name), std::move(condition));
}

const fault_mix& world::faults() const noexcept { return core_->faults(); }

rng& world::random(std::string_view name) {
  if (name.empty()) return core_->user_rng();
  return core_->stream("user:" + std::string(name), choice_purpose::user);
}

bool buggify(std::string_view site) {
  detail::world_core* core = detail::current_core();
  return core != nullptr && core->buggify(site);
}

// ---- host -----------------------------------------------------------------------

host::host(world& w, std::uint32_t id, std::string name, boost::asio::ip::address addr)
    : world_(&w), address_(addr) {
  state_.id = id;
  state_.name = std::move(name);
}

host::~host() = default;

io_context& host::context() {
  if (!context_) {
    context_ = std::make_unique<io_context>(*this, 1);
    detail::access::state(*context_).owner = 0;  // the host's, whoever asked for it first
  }
  return *context_;
}

void host::boot() {
  if (!boot_) return;
  detail::world_core& core = detail::access::core(*world_);
  core.record(event_kind::boot, state_.id);
  core.run_as(state_, [this] { boot_(*this); });
}

void host::on_boot(std::function<void(host&)> boot_fn) {
  boot_ = std::move(boot_fn);
  if (state_.up) boot();
}

void host::crash_only(crash_kind kind) {
  if (!state_.up) {
    // Down after a process crash, the machine still had its page cache: a
    // power cut now takes it. (The network side of such a host is left as
    // the process crash left it.)
    if (kind == crash_kind::power && state_.disk && !state_.power_crash) {
      state_.power_crash = true;
      state_.disk->power_cut();
    }
    return;
  }
  state_.up = false;
  state_.powered = kind != crash_kind::power;
  ++state_.incarnation;
  state_.power_crash = kind == crash_kind::power;
  detail::world_core& core = detail::access::core(*world_);
  state_.crashed_at_ns = core.now().count();
  core.record(event_kind::crash, state_.id, static_cast<std::uint64_t>(kind));
  // Every handler of the dead process first (destroying them closes the
  // sockets they owned), then the OS closes what is left open, or the
  // machine goes silent.
  core.drop_host_work(state_);
  // Its processes die at their blocking calls: their stacks unwind (their
  // sockets close as the handlers' did above), the OS closes the rest.
  core.kill_processes(state_);
  detail::access::net(*world_).host_crashed(state_.id, kind == crash_kind::power);
  if (state_.disk) state_.disk->close_posix_files();  // the OS closes the dead processes' descriptors
  // The OS closed the dead process's files above; a power cut also takes
  // the page cache and whatever the disk had not made durable.
  if (kind == crash_kind::power && state_.disk) state_.disk->power_cut();
}

simasio::disk& host::disk() {
  if (!disk_) disk_.reset(new simasio::disk(detail::disk_of(detail::access::core(*world_), state_)));
  return *disk_;
}

void host::crash(crash_kind kind) {
  crash_only(kind);
  // A process that crashed its own host ends here.
  detail::access::core(*world_).exit_if_killed();
}

void host::restart() {
  if (state_.up) crash_only(crash_kind::process);
  state_.up = true;
  state_.powered = true;
  detail::access::core(*world_).record(event_kind::restart, state_.id);
  boot();
  detail::access::core(*world_).exit_if_killed();
}

process host::spawn(std::function<void()> main) {
  if (!main) throw usage_error("simasio: host::spawn on host '" + name() + "' was given an empty function");
  return process(detail::access::core(*world_).spawn(*this, state_, [main = std::move(main)] {
    main();
    return 0;
  }));
}

process host::spawn_main(std::function<int(int, char**)> main, std::vector<std::string> args) {
  if (!main) throw usage_error("simasio: host::spawn_main on host '" + name() + "' was given an empty function");
  if (args.empty())
    throw usage_error("simasio: host::spawn_main on host '" + name() +
                      "' needs at least the program name: spawn_main(main, {\"prog\", \"arg\", ...})");
  return process(detail::access::core(*world_).spawn(*this, state_, [main = std::move(main), args = std::move(args)]() mutable {
    std::vector<char*> argv;
    argv.reserve(args.size() + 1);
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    return main(static_cast<int>(args.size()), argv.data());
  }));
}

void host::raise(int sig) {
  detail::world_core& core = detail::access::core(*world_);
  core.record(event_kind::signal, state_.id, static_cast<std::uint64_t>(sig));
  if (!state_.up) return;
  for (detail::context_state* ctx : core.contexts()) {
    if (ctx == nullptr || ctx->host != &state_) continue;
    if (boost::asio::has_service<detail::signal_service>(*ctx->exec))
      boost::asio::use_service<detail::signal_service>(*ctx->exec).raise(sig);
  }
}

void host::set_clock(duration offset, double drift_ppm) {
  if (!(drift_ppm > -1'000'000.0) || !std::isfinite(drift_ppm))
    throw config_error("simasio: host::set_clock: drift_ppm must be finite and greater than -1000000 (got " +
                       std::to_string(drift_ppm) + ")");
  state_.offset_ns = offset.count();
  state_.drift_ppb = std::llround(drift_ppm * 1000.0);
  detail::access::core(*world_).record(event_kind::clock_set, state_.id, static_cast<std::uint64_t>(state_.offset_ns),
                            static_cast<std::uint64_t>(state_.drift_ppb));
}

}  // namespace simasio
