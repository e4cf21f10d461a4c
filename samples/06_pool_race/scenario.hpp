// scenario.hpp — credit and report on a pool, strand or not (the sweep in main.cpp, the fuzz target in fuzz.cpp)
#ifndef SIMASIO_SAMPLE_06_SCENARIO_HPP
#define SIMASIO_SAMPLE_06_SCENARIO_HPP

#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <stdexcept>
#include <string>

namespace sample_06 {

namespace net = simasio::asio;

// The service under test: Executor is the pool itself or a strand on it.
template <class Executor>
void serve(Executor ex, int& balance, std::string& reports) {
  for (int request = 0; request < 3; ++request) {
    net::post(ex, [&balance] { balance += 10; });                                    // credit
    net::post(ex, [&balance, &reports] { reports += std::to_string(balance) + " "; });  // report
  }
}

inline void scenario(simasio::world& w, bool with_strand) {
  simasio::io_context pool(w.add_host("bank"), 4);
  int balance = 0;
  std::string reports;
  if (with_strand) serve(net::make_strand(pool), balance, reports);
  else serve(pool.get_executor(), balance, reports);
  w.run();
  if (reports != "10 20 30 ") throw std::runtime_error("reports out of order: " + reports);
}

}  // namespace sample_06

#endif  // SIMASIO_SAMPLE_06_SCENARIO_HPP
