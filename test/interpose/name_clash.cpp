// name_clash.cpp — a program with globals named like functions simasio::interpose defines (name_clash_flags.cpp)
//
// With external linkage the link fails, naming the symbol; made file-local
// (static) they link, and the program runs with everything interposed.
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
