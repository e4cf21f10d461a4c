// handler_chain.hpp — a chain of bare handlers, each posting the next: the
// least a handler step costs on a context (the runtime group compares the
// two contexts with it; the raft group takes Asio's as a ceiling).
#pragma once

#include <boost/asio/post.hpp>

#include <cstddef>

namespace bench {

template <class Context>
struct chain {
  Context& ctx;
  std::size_t left;
  std::size_t* count;
  void operator()() {
    ++*count;
    if (--left > 0) boost::asio::post(ctx, chain{ctx, left, count});
  }
};

/// Runs a chain of n handlers on ctx; returns how many ran.
template <class Context>
std::size_t handler_chain(Context& ctx, std::size_t n) {
  std::size_t count = 0;
  boost::asio::post(ctx, chain<Context>{ctx, n, &count});
  ctx.run();
  return count;
}

}  // namespace bench
