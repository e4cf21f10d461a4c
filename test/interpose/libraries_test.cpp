// libraries_test.cpp — networking libraries that are not simasio's, unmodified, in simulated processes
//
// libcurl (Debian's libcurl4-openssl, a shared object: its easy and multi
// interfaces, its resolver thread, its poll loop) fetches from a Beast
// server that runs on simasio's own sockets in the same world, and
// cpp-httplib (a header-only blocking server with a thread pool, and its
// blocking client) serves and fetches: all of it meets the simulation at
// the system-call boundary (simasio::interpose), under latency, loss and
// a partition that heals.
#include <simasio/simasio.hpp>

#include "beast_hello.hpp"
#include "faulty_runs.hpp"

#include <boost/test/unit_test.hpp>

#include <curl/curl.h>
#include <httplib.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

using namespace std::chrono_literals;

namespace {

std::uint64_t seeds() { return faulty::seeds("SIMASIO_LIBRARY_SEEDS"); }
simasio::check_options sweep() { return faulty::sweep(seeds()); }
using faulty::failure_of;
using faulty::run_with_partition;
void faults(simasio::world& w) { faulty::network(w); }

std::size_t collect(char* data, std::size_t size, std::size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

// An easy handle that fetches url into body.
CURL* fetcher(const std::string& url, std::string& body) {
  CURL* e = curl_easy_init();
  curl_easy_setopt(e, CURLOPT_URL, url.c_str());
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &collect);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, &body);
  return e;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(posix_libraries)

BOOST_AUTO_TEST_CASE(libcurl_easy_fetches_from_a_beast_server_in_the_same_world) {
  curl_global_init(CURL_GLOBAL_DEFAULT);  // once, outside any world, as a program's start does
  const auto r = simasio::check(
      [](simasio::world& w) {
        beast_hello::client_against_beast(
            w,
            [] {
              std::string body;
              CURL* curl = fetcher("http://server:8080/easy", body);
              const CURLcode rc = curl_easy_perform(curl);
              long status = 0;
              curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
              curl_easy_cleanup(curl);
              std::printf("%d %ld %s", static_cast<int>(rc), status, body.c_str());
            },
            "0 200 beast says hello to /easy", "curl");
      },
      sweep());
  BOOST_TEST(r.ok(), failure_of(r));
  BOOST_TEST(r.runs == seeds());
}

BOOST_AUTO_TEST_CASE(libcurl_multi_fetches_three_urls_at_once_over_poll) {
  curl_global_init(CURL_GLOBAL_DEFAULT);
  const auto r = simasio::check(
      [](simasio::world& w) {
        beast_hello::client_against_beast(
            w,
            [] {
              CURLM* multi = curl_multi_init();
              std::vector<std::string> bodies(3);
              std::vector<CURL*> easies;
              for (std::size_t i = 0; i < 3; ++i) {
                easies.push_back(fetcher("http://server:8080/multi/" + std::to_string(i), bodies[i]));
                curl_multi_add_handle(multi, easies.back());
              }
              int running = 0;
              do {
                curl_multi_perform(multi, &running);
                if (running > 0) curl_multi_poll(multi, nullptr, 0, 1000, nullptr);
              } while (running > 0);
              int left = 0;
              int ok = 0;
              while (CURLMsg* m = curl_multi_info_read(multi, &left))
                if (m->msg == CURLMSG_DONE && m->data.result == CURLE_OK) ++ok;
              for (CURL* e : easies) {
                curl_multi_remove_handle(multi, e);
                curl_easy_cleanup(e);
              }
              curl_multi_cleanup(multi);
              std::printf("%d|%s|%s|%s", ok, bodies[0].c_str(), bodies[1].c_str(), bodies[2].c_str());
            },
            "3|beast says hello to /multi/0|beast says hello to /multi/1|beast says hello to /multi/2", "curl multi");
      },
      sweep());
  BOOST_TEST(r.ok(), failure_of(r));
}

BOOST_AUTO_TEST_CASE(cpp_httplib_blocking_server_and_client_with_its_thread_pool) {
  const auto r = simasio::check(
      [](simasio::world& w) {
        faults(w);
        auto& server = w.add_host("server");
        auto& client = w.add_host("client");
        server.spawn([] {
          httplib::Server svr;
          // Its default read timeout (5 s) is shorter than a request can
          // stall behind the partition and TCP's backoff: it then answers
          // 400, as it would on a real network.
          svr.set_read_timeout(60, 0);
          svr.Get("/hi", [](const httplib::Request& req, httplib::Response& res) {
            res.set_content("httplib hi, " + req.get_param_value("who"), "text/plain");
          });
          svr.listen("0.0.0.0", 8080);
        });
        w.run_for(10ms);
        const simasio::process p = client.spawn([] {
          httplib::Client cli("server", 8080);
          cli.set_connection_timeout(std::chrono::seconds(60));
          cli.set_read_timeout(std::chrono::seconds(60));
          for (const char* who : {"ann", "bob"}) {
            auto res = cli.Get(std::string("/hi?who=") + who);
            if (res) std::printf("%d %s;", res->status, res->body.c_str());
            else std::printf("error %d;", static_cast<int>(res.error()));
          }
        });
        run_with_partition(w, server, {&client}, [&] { return p.ended(); });
        if (p.stdout_text() != "200 httplib hi, ann;200 httplib hi, bob;")
          throw std::runtime_error("the httplib client printed \"" + p.stdout_text() + "\"");
      },
      sweep());
  BOOST_TEST(r.ok(), failure_of(r));
}

BOOST_AUTO_TEST_SUITE_END()
