// cpprest_test.cpp — the C++ REST SDK, Asio compiled into its own shared object, unmodified in a process
//
// Debian's libcpprest.so.2.10 carries its own copy of Boost.Asio (1.74,
// where this program has 1.81): its http_client resolves, connects, writes
// and reads on that copy's epoll reactor, with a static pool of 40 threads
// running its io_context, pplx tasks continuing on them and the caller
// waiting in task::get(). Nothing of it is switched or recompiled: it
// meets the simulation at the system-call boundary (simasio::interpose),
// fetching from a Beast server on simasio's own sockets in the same world,
// under latency, loss and a partition that heals.
//
// The executable hides its own Boost symbols (cpprest_hide_boost.map):
// otherwise the dynamic linker binds the library's calls into its Asio to
// this program's newer definitions of the same names, as it would in any
// program mixing two Boost versions, simulated or not.
#include <simasio/simasio.hpp>

#include "beast_hello.hpp"

#include <boost/test/unit_test.hpp>

#include <cpprest/http_client.h>

#include <cstdio>
#include <stdexcept>
#include <string>

namespace {

std::uint64_t seeds() { return faulty::seeds("SIMASIO_LIBRARY_SEEDS"); }

// A process that fetches two paths with one http_client (one keep-alive
// connection, reused) and prints "status body;" for each.
void fetch_twice() {
  web::http::client::http_client client(U("http://server:8080"));
  for (const char* path : {"/one", "/two"}) {
    try {
      web::http::http_response res = client.request(web::http::methods::GET, path).get();
      std::printf("%d %s;", static_cast<int>(res.status_code()), res.extract_string().get().c_str());
    } catch (const std::exception& e) {
      std::printf("error %s;", e.what());
    }
  }
}

void cpprest_against_beast(simasio::world& w) {
  beast_hello::client_against_beast(w, fetch_twice, "200 beast says hello to /one;200 beast says hello to /two;",
                                    "the cpprest client");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(posix_cpprest)

BOOST_AUTO_TEST_CASE(cpprest_http_client_fetches_from_a_beast_server_in_the_same_world) {
  const auto r = simasio::check(cpprest_against_beast, faulty::sweep(seeds()));
  BOOST_TEST(r.ok(), faulty::failure_of(r));
  BOOST_TEST(r.runs == seeds());
  BOOST_TEST(r.isolated);  // its thread pool is a static: each seed starts from the program as it was
}

BOOST_AUTO_TEST_CASE(a_seed_of_the_cpprest_client_traces_the_same_twice) {
  simasio::check_options o = faulty::sweep(20);
  o.verify_determinism = true;
  const auto first = simasio::check(cpprest_against_beast, o);
  const auto second = simasio::check(cpprest_against_beast, o);
  BOOST_TEST(first.ok(), faulty::failure_of(first));
  BOOST_TEST(first.trace_hashes.size() == 20U);
  BOOST_TEST(first.trace_hashes == second.trace_hashes);
}

BOOST_AUTO_TEST_SUITE_END()
