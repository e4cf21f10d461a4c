// simasio/detail/socket_service.hpp — sockets of one io_context, their operations and sync calls
#ifndef SIMASIO_DETAIL_SOCKET_SERVICE_HPP
#define SIMASIO_DETAIL_SOCKET_SERVICE_HPP

#include <simasio/detail/handler_work.hpp>
#include <simasio/detail/op_memory.hpp>
#include <simasio/detail/sim_context.hpp>
#include <simasio/detail/world_core.hpp>
#include <simasio/error.hpp>
#include <simasio/io_context.hpp>
#include <simasio/detail/net/socket_ops.hpp>
#include <simasio/detail/net/socket_state.hpp>

#include <boost/asio/associated_allocator.hpp>
#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/cancellation_type.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/execution_context.hpp>
#include <boost/asio/ip/basic_endpoint.hpp>

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace simasio::detail {

// The sockets of one io_context: creates their network state, and is how a
// crash or a shutdown reaches their pending operations.
class socket_service final : public boost::asio::execution_context::service, public pending_source {
 public:
  using key_type = socket_service;
  inline static boost::asio::execution_context::id id;

  explicit socket_service(boost::asio::execution_context& ctx);
  ~socket_service() override;

  static socket_service& of(io_context& ctx) { return boost::asio::use_service<socket_service>(ctx); }

  // The world's network, or nullptr once the world is gone.
  socket_ops* net() const noexcept;
  // The world's network. @throws usage_error naming `kind` once the world
  // is gone.
  socket_ops& net_checked(const char* kind = "socket") const;
  context_state& ctx() const noexcept { return *ctx_; }

  socket_state& create(transport proto);
  void destroy(socket_state& s) noexcept;
  // A socket destroyed on a thread that does not run its world: its state
  // is kept as it is (the world never sees the socket go) and freed with
  // the service, on the context's own thread. Safe from any thread.
  void adopt_foreign(socket_state& s) noexcept;

  boost::system::error_code set_option(socket_state& s, int level, int name, const void* data, std::size_t size);
  boost::system::error_code get_option(const socket_state& s, int level, int name, void* data, std::size_t& size) const;

  void abandon() noexcept override;
  void describe(std::vector<std::string>& out) const override;

  // While set, operations started are non-blocking (a synchronous call
  // inside a handler may complete at once, but never waits).
  bool force_non_blocking = false;

 private:
  void shutdown() override;
  void free_foreign() noexcept;
  context_state* ctx_;
  socket_ops* net_;
  std::mutex foreign_mutex_;             // guards foreign_: written by other threads
  std::vector<socket_state*> foreign_;  // see adopt_foreign
};

// Throws the usage_error of a socket (`kind`) used from a thread other than
// the one that created it: a world and its sockets run on one thread.
[[noreturn]] void throw_foreign_thread(const char* kind);

// Endpoint conversions between Asio's typed endpoints and the network's.
template <class Endpoint>
net_endpoint to_net(const Endpoint& ep) {
  return net_endpoint{ep.address(), ep.port()};
}
template <class Endpoint>
Endpoint from_net(const net_endpoint& ep) {
  return Endpoint(ep.address, ep.port);
}

// A socket operation with its handler. Completion is (ec, bytes), (ec), or
// (ec, peer socket) for the move-accept form.
enum class completes_with { ec, ec_bytes, ec_peer };

template <class Handler, class IoExecutor, completes_with Shape, class Peer = int>
class socket_op final : public handler_op<sock_op, Handler, IoExecutor> {
  using base = handler_op<sock_op, Handler, IoExecutor>;

 public:
  template <class H>
  socket_op(H&& h, const IoExecutor& io_ex, const context_state& ctx, world_core& core)
      : base(&do_complete, std::forward<H>(h), io_ex, ctx, core) {}

  std::optional<Peer> peer_;  // ec_peer: the socket the connection is accepted into

 private:
  static void do_complete(operation* op, bool invoke) {
    auto* o = static_cast<socket_op*>(op);
    const boost::system::error_code ec = o->ec_;
    if constexpr (Shape == completes_with::ec) {
      base::finish(o, invoke, ec);
    } else if constexpr (Shape == completes_with::ec_bytes) {
      base::finish(o, invoke, ec, o->bytes_);
    } else {
      Peer peer(std::move(*o->peer_));
      base::finish(o, invoke, ec, std::move(peer));
    }
  }
};

struct socket_op_cancellation {
  socket_ops* net;
  sock_op* op;
  void operator()(boost::asio::cancellation_type_t type) const {
    using ct = boost::asio::cancellation_type;
    if ((type & (ct::terminal | ct::partial | ct::total)) != ct::none) net->cancel_op(*op);
  }
};

// Starts a socket operation through start_op (the checks, work and
// cancellation every I/O object shares); `setup` fills in what this
// operation needs before the network sees it.
template <completes_with Shape, class Peer = int, class Handler, class IoExecutor, class Setup>
void start_socket_op(socket_service& svc, socket_state& s, Handler&& handler, const IoExecutor& io_ex,
                     sock_op::kind kind, Setup&& setup) {
  using op_type = socket_op<std::decay_t<Handler>, IoExecutor, Shape, Peer>;
  socket_ops* net = svc.net();  // null once the world is gone: start_op refuses that first
  op_type* op = start_op<op_type>(
      svc.ctx(), s.incarnation, socket_kind(s), std::forward<Handler>(handler), io_ex,
      [&](op_type& o) {
        o.kind_ = kind;
        setup(o);
        if (svc.force_non_blocking) o.non_blocking_ = true;
      },
      [net](op_type* o) { return socket_op_cancellation{net, o}; });
  if (op != nullptr) net->start(s, *op);
}

// Runs a synchronous operation: from the test body it starts it and drives
// the world until it completes. Inside a handler it may still complete at
// once (the data is there); if it would have to wait it fails with
// simasio::error::would_block (or Asio's would_block on a non-blocking
// socket), since nothing could ever complete it.
std::pair<boost::system::error_code, std::size_t> run_sync(
    socket_service& svc, const std::function<void(std::function<void(boost::system::error_code, std::size_t)>)>& start,
    bool socket_non_blocking = false);

// Throws a system_error for a failed synchronous socket call, with a
// message naming a blocking call inside a handler when that was the cause.
void throw_socket_error(const boost::system::error_code& ec, const char* what);

// Throws the system_error of a bind to a port in use, naming the host and
// the endpoint.
[[noreturn]] void throw_address_in_use(const boost::system::error_code& ec, const socket_state& s,
                                       const std::string& address, unsigned short port);

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_SOCKET_SERVICE_HPP
