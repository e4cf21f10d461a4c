// name_clash.cpp — a program with a global named like a function simasio::interpose defines still links and runs
//
// The interposed definitions are weak: the program's own `send` keeps its
// name (and that call is then not interposed); everything else is.
#include <simasio/simasio.hpp>

#include <chrono>
#include <cstdio>
#include <thread>

bool program_flags_ok();  // name_clash_flags.cpp: `bool send;` and `int connect;` live there

int main() {
  simasio::world w(1);
  auto& h = w.add_host("h");
  bool slept = false;
  h.spawn([&slept] {
    std::this_thread::sleep_for(std::chrono::seconds(5));  // still interposed: virtual time
    slept = true;
  });
  w.run();
  std::printf("flags=%d slept=%d at t=%lld ns\n", program_flags_ok(), slept, static_cast<long long>(w.now().count()));
  return program_flags_ok() && slept && w.now() == std::chrono::seconds(5) ? 0 : 1;
}
