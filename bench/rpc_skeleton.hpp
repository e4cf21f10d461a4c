// rpc_skeleton.hpp — 04_raft_chaos's RPC as coroutines with no I/O: the
// least such an RPC costs a context (the raft group takes Asio's as 04's
// ceiling; bench/instructions.cpp counts its instructions).
#pragma once

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/experimental/channel.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <cstddef>
#include <optional>
#include <stdexcept>

namespace bench::skeleton {

namespace asio = boost::asio;
using namespace asio::experimental::awaitable_operators;

// One 04 RPC's coroutines with every I/O completion replaced by a post:
// the caller's coroutine awaits (exchange || deadline), exchange awaits its
// connect, write and read, the server side answers in a coroutine of its
// own (read, write). The deadline is an in-memory wait that is cancelled
// (a channel), as a simulated timer is: no reactor, no system call. 04's
// accept loop, its composed async_read/async_write and the vote's outer
// coroutine are left out, so this is less than an RPC of 04 costs Asio.
inline asio::awaitable<void> answer() {
  co_await asio::post(asio::use_awaitable);  // read the request
  co_await asio::post(asio::use_awaitable);  // write the response
}
inline asio::awaitable<std::optional<int>> exchange() {
  auto ex = co_await asio::this_coro::executor;
  co_await asio::post(asio::use_awaitable);  // connect
  asio::co_spawn(ex, answer(), asio::detached);
  co_await asio::post(asio::use_awaitable);  // write
  co_await asio::post(asio::use_awaitable);  // read
  co_return 1;
}
inline asio::awaitable<void> call(std::size_t* answered) {
  auto ex = co_await asio::this_coro::executor;
  asio::experimental::channel<void(boost::system::error_code)> deadline(ex);
  auto r = co_await (exchange() || deadline.async_receive(asio::as_tuple(asio::use_awaitable)));
  if (r.index() == 0) ++*answered;
}
/// Runs n RPCs on ctx, a few in flight at a time; returns how many answered.
template <class Context>
std::size_t rpcs_on(Context& ctx, std::size_t n) {
  std::size_t answered = 0;
  for (std::size_t i = 0; i < n; ++i) {
    asio::co_spawn(ctx, call(&answered), asio::detached);
    if (i % 8 == 7) {  // a few RPCs in flight at a time, as in 04
      ctx.run();
      ctx.restart();
    }
  }
  ctx.run();
  if (answered != n) throw std::runtime_error("bench: an RPC of the coroutine skeleton (rpc_skeleton.hpp) did not answer");
  return n;
}

}  // namespace bench::skeleton
