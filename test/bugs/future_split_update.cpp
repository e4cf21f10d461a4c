// future_split_update.cpp — std::async tasks update a total in two critical sections and lose updates (fixed: one)
#include <future>
#include <mutex>
#include <vector>

namespace {
std::mutex m;
int total = 0;

void add(int n) {
  for (int i = 0; i < 2; ++i) {
    int seen;
    {
      std::lock_guard<std::mutex> lock(m);
      seen = total;
#ifdef FIXED
      total = seen + n;
#endif
    }
#ifndef FIXED
    std::lock_guard<std::mutex> lock(m);
    total = seen + n;
#endif
  }
}
}  // namespace

int main() {
  std::vector<std::future<void>> tasks;
  for (int n : {1, 10}) tasks.push_back(std::async(std::launch::async, add, n));
  for (auto& t : tasks) t.get();
  return total == 22 ? 0 : 1;
}
