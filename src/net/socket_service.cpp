// socket_service.cpp — sockets of one io_context: creation, options, sync calls
#include <simasio/detail/socket_service.hpp>

#include <simasio/detail/access.hpp>
#include <simasio/detail/current.hpp>
#include <simasio/detail/net/socket_ops.hpp>
#include <simasio/world.hpp>

#include <boost/asio/detail/socket_types.hpp>

#include <cstring>

#include <netinet/tcp.h>

namespace simasio::detail {

socket_service::socket_service(boost::asio::execution_context& ctx)
    : boost::asio::execution_context::service(ctx) {
  io_context& io = sim_context_of(ctx, "socket");
  ctx_ = &access::state(io);
  net_ = &access::net(io.get_world());
  ctx_->sources.push_back(this);
}

socket_service::~socket_service() {
  free_foreign();
  auto& sources = ctx_->sources;
  for (auto it = sources.begin(); it != sources.end(); ++it)
    if (*it == this) {
      sources.erase(it);
      break;
    }
}

socket_ops& socket_service::net_checked(const char* kind) const {
  if (net() == nullptr) [[unlikely]]
    throw_orphaned(*ctx_, kind);
  return *net_;
}

socket_state& socket_service::create(transport proto) { return net_checked().create_socket(*ctx_, proto); }

// Once the world is gone (the context was cut loose), so is its network:
// sockets that outlive it only free their own state.
socket_ops* socket_service::net() const noexcept { return ctx_->core != nullptr ? net_ : nullptr; }

void socket_service::destroy(socket_state& s) noexcept {
  if (socket_ops* n = net()) n->destroy_socket(s);
  else if (s.net != nullptr) s.net->forget_socket(s);  // context cut loose, network not yet gone
  else delete &s;
}

void socket_service::adopt_foreign(socket_state& s) noexcept {
  try {
    const std::lock_guard<std::mutex> lock(foreign_mutex_);
    foreign_.push_back(&s);
  } catch (...) {
    // Out of memory on a path that is already a usage error: leak the state.
  }
}

void socket_service::free_foreign() noexcept {
  std::vector<socket_state*> states;
  {
    const std::lock_guard<std::mutex> lock(foreign_mutex_);
    states.swap(foreign_);
  }
  for (socket_state* s : states) destroy(*s);
}

void socket_service::shutdown() {
  abandon();
  free_foreign();
}

void socket_service::abandon() noexcept {
  if (socket_ops* n = net()) n->abandon(*ctx_);
}

void socket_service::describe(std::vector<std::string>& out) const {
  if (socket_ops* n = net()) n->describe_pending(*ctx_, out);
}

boost::system::error_code socket_service::set_option(socket_state& s, int level, int name, const void* data,
                                                     std::size_t size) {
  if (!s.open) return boost::asio::error::bad_descriptor;  // Asio: no descriptor, no option
  return net_checked().set_option(s, level, name, data, size);
}

boost::system::error_code socket_service::get_option(const socket_state& s, int level, int name, void* data,
                                                     std::size_t& size) const {
  if (!s.open) return boost::asio::error::bad_descriptor;
  return net_checked().get_option(s, level, name, data, size);
}

std::pair<boost::system::error_code, std::size_t> run_sync(
    socket_service& svc, const std::function<void(std::function<void(boost::system::error_code, std::size_t)>)>& start,
    bool socket_non_blocking) {
  svc.net_checked();  // a usage_error if the world is gone
  world_core& core = *svc.ctx().core;
  if (core.in_process() && !core.may_block()) return {error::host_down, 0};
  if (!svc.ctx().host->up) return {error::host_down, 0};
  auto result = std::make_shared<std::optional<std::pair<boost::system::error_code, std::size_t>>>();
  if (core.in_process()) {
    // A simulated process: the call suspends it until the operation's
    // completion (a step of the socket's context) wakes it.
    const process_wakeup wake = core.prepare_wait();
    start([result, wake](boost::system::error_code ec, std::size_t n) {
      *result = std::make_pair(ec, n);
      wake();
    });
    while (!result->has_value()) {
      core.waiting_for("a synchronous socket call");
      if (!core.suspend()) return {error::host_down, 0};  // its host crashed: it is unwinding
    }
    return **result;
  }
  auto record = [result](boost::system::error_code ec, std::size_t n) { *result = std::make_pair(ec, n); };
  if (core.running()) {
    svc.force_non_blocking = true;
    struct reset {
      socket_service& svc;
      ~reset() { svc.force_non_blocking = false; }
    } guard{svc};
    start(record);
    if (result->has_value() && (*result)->first == boost::asio::error::would_block && !socket_non_blocking)
      return {error::would_block, 0};
    return result->has_value() ? **result : std::make_pair(boost::system::error_code(error::would_block), std::size_t{0});
  }
  start(record);
  if (!result->has_value()) {
    const std::function<bool()> done = [&result] { return result->has_value(); };
    run_limits limits;
    limits.until = &done;
    while (!result->has_value() && core.run(limits).end == run_end::stopped) {
    }
  }
  if (!result->has_value()) return {error::stalled, 0};
  return **result;
}

void throw_foreign_thread(const char* kind) {
  throw usage_error(std::string("simasio: a ") + kind +
                    " was used from a thread other than the one that created it; a simulated world and its "
                    "sockets run on one OS thread, so a socket cannot be handed to a real thread of its own (a "
                    "thread per connection, as in std::thread(session, std::move(socket))). Run that code as a "
                    "process of its host (host.spawn) in a program linked with simasio::interpose, where "
                    "std::thread starts a simulated thread of the host; or serve each connection with "
                    "asynchronous operations on the world's io_context (async_read_some and async_write, or "
                    "co_spawn a coroutine per connection)");
}

void throw_socket_error(const boost::system::error_code& ec, const char* what) {
  if (!ec) return;
  if (ec == error::would_block)
    throw boost::system::system_error(ec, std::string("simasio: socket ") + what +
                                              "() was called inside a handler; a blocking call there can never "
                                              "complete. Use the async_ form");
  throw boost::system::system_error(ec, what);
}

void throw_address_in_use(const boost::system::error_code& ec, const socket_state& s, const std::string& address,
                          unsigned short port) {
  const std::string where = (address.find(':') != std::string::npos ? "[" + address + "]" : address) + ":" +
                            std::to_string(port) + " on host '" + s.ctx->host->name + "'";
  const char* proto = s.proto == transport::udp ? "UDP" : "TCP";
  if (port == 0)
    throw boost::system::system_error(ec, "simasio: bind to " + where + ": every ephemeral " + std::string(proto) +
                                              " port of this host is taken (close sockets you no longer use)");
  throw boost::system::system_error(
      ec, "simasio: bind to " + where + ": another " + std::string(proto) +
              " socket of this host holds that port on the same address or the wildcard" +
              (s.proto == transport::tcp ? ", or a connection closed there waits in TIME_WAIT (60 s)" : "") +
              " (close it first, set reuse_address(true) on both sockets as Linux requires, or bind port 0 for a "
              "free one)");
}

}  // namespace simasio::detail
