// cv_if_not_while.cpp — two consumers wait with `if`, not `while`: one is woken to an empty queue (fixed: a predicate)
#include <cassert>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace {
std::mutex m;
std::condition_variable cv;
std::deque<int> queue;
int consumed = 0;

void consume() {
  std::unique_lock<std::mutex> lock(m);
#ifdef FIXED
  cv.wait(lock, [] { return !queue.empty(); });
#else
  if (queue.empty()) cv.wait(lock);
#endif
  assert(!queue.empty() && "a consumer is only woken when there is an item");
  queue.pop_front();
  ++consumed;
}
}  // namespace

int main() {
  std::thread c1(consume), c2(consume);
  for (int i = 0; i < 2; ++i) {
    {
      std::lock_guard<std::mutex> lock(m);
      queue.push_back(i);
    }
    cv.notify_all();
  }
  c1.join();
  c2.join();
  return consumed == 2 ? 0 : 1;
}
