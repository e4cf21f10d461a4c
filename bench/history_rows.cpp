// history_rows.cpp — check_linearizable on register histories of 100, 1,000
// and 10,000 operations: three clients whose operations overlap, every
// read concurrent with a write (so the search has choices to make).
#include "groups.hpp"

#include <simasio/check/linearizability.hpp>
#include <simasio/check/models.hpp>

#include <stdexcept>
#include <string>
#include <tuple>

namespace bench {
namespace {

using reg_input = simasio::models::register_op<>;
using register_model = simasio::models::register_model<>;

simasio::history<reg_input, int> make_history(int operations) {
  simasio::history<reg_input, int> h;
  int value = 0;
  for (int i = 0; static_cast<int>(h.size()) < operations; ++i) {
    const std::int64_t t = static_cast<std::int64_t>(i) * 100;
    h.complete(h.invoke(0, {true, i + 1}, t), 0, t + 50);
    if (static_cast<int>(h.size()) < operations) h.complete(h.invoke(1, {false, 0}, t + 1), value, t + 40);  // before the write took effect
    if (static_cast<int>(h.size()) < operations) h.complete(h.invoke(2, {false, 0}, t + 30), i + 1, t + 70);  // after it
    value = i + 1;
  }
  return h;
}

}  // namespace

void history_rows(const settings& s, std::vector<row>& rows) {
  for (int n : {100, 1000, 10000}) {
    const auto h = make_history(n);
    const int reps = s.quick ? 1 : (n >= 10000 ? 3 : 20);
    const double rate = best_rate(s.reps(), [&] {
      for (int i = 0; i < reps; ++i)
        if (!simasio::check_linearizable(h, register_model{}).ok)
          throw std::runtime_error("simasio_bench: a linearizable history was refused");
      return reps;
    });
    rows.push_back({"check_linearizable, register history of " + std::to_string(h.size()) +
                        " operations, 3 clients (histories/s)",
                    rate, 0, "", "", true, "/s"});
  }
}

}  // namespace bench
