// asio_memory.cpp — Asio's recycling cache while the world runs (asio_memory.hpp)
#include "asio_memory.hpp"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace simasio::detail {

namespace {

// The innermost run of a world on this thread (asio_memory.hpp).
constinit thread_local asio_memory_scope* innermost_scope = nullptr;
// Runs of worlds begun on this thread: other copies of Asio are looked for
// once per run, on its first fiber switch (foreign_tops).
constinit thread_local std::uint64_t run_epoch = 0;

}  // namespace

asio_memory_scope::asio_memory_scope() noexcept : outer_(innermost_scope) {
  ++run_epoch;
  innermost_scope = this;
  if constexpr (pool_allocations) push();
}

asio_memory_scope::~asio_memory_scope() {
  pushed_.reset();
  innermost_scope = outer_;
}

// Asio's call stack of schedulers is a private static of call_stack; an
// explicit instantiation may name it (access is not checked there), which
// is how the fiber switch reads and sets its top.
using thread_call_stack =
    boost::asio::detail::call_stack<boost::asio::detail::thread_context, boost::asio::detail::thread_info_base>;
using call_stack_top = boost::asio::detail::tss_ptr<thread_call_stack::context>;

template <call_stack_top* Top>
struct call_stack_access {
  friend call_stack_top& asio_call_stack_top() noexcept { return *Top; }
};
call_stack_top& asio_call_stack_top() noexcept;
template struct call_stack_access<&thread_call_stack::top_>;

namespace {

// Other copies of Asio's call stack top: the thread-local `value_` behind
// call_stack<thread_context, thread_info_base>::top_ in a shared object
// that carries Asio of its own (Boost's or standalone Asio). Thread-local,
// so each thread finds its own addresses; found again when the set of
// loaded objects changed since.
constexpr const char* foreign_top_symbols[] = {
    "_ZN5boost4asio6detail15keyword_tss_ptrINS1_10call_stackINS1_14thread_contextENS1_16thread_info_baseEE7contextEE6value_E",
    "_ZN4asio6detail15keyword_tss_ptrINS0_10call_stackINS0_14thread_contextENS0_16thread_info_baseEE7contextEE6value_E",
};

struct foreign_copies {
  unsigned long long adds = 0;
  unsigned long long subs = 0;
  bool scanned = false;
  std::vector<void**> tops;
};

int read_load_counts(dl_phdr_info* info, std::size_t, void* out) {
  auto* c = static_cast<foreign_copies*>(out);
  c->adds = info->dlpi_adds;
  c->subs = info->dlpi_subs;
  return 1;  // the counters are the same on every entry
}

int collect_names(dl_phdr_info* info, std::size_t, void* out) {
  if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0')
    static_cast<std::vector<std::string>*>(out)->emplace_back(info->dlpi_name);
  return 0;
}

constinit thread_local std::uint64_t checked_epoch = static_cast<std::uint64_t>(-1);

const std::vector<void**>& foreign_tops() {
  thread_local foreign_copies found;
  if (checked_epoch == run_epoch) return found.tops;
  checked_epoch = run_epoch;
  foreign_copies now;
  ::dl_iterate_phdr(&read_load_counts, &now);
  if (found.scanned && now.adds == found.adds && now.subs == found.subs) return found.tops;
  std::vector<std::string> names;
  ::dl_iterate_phdr(&collect_names, &names);
  // The program's own top, told apart by a mark: a copy the dynamic linker
  // bound to the program's (a unique symbol it exports) reads the mark too.
  call_stack_top& own = asio_call_stack_top();
  thread_call_stack::context* const saved = own;
  int mark = 0;
  own = reinterpret_cast<thread_call_stack::context*>(&mark);
  for (const std::string& name : names) {
    void* handle = ::dlopen(name.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (handle == nullptr) continue;
    for (const char* symbol : foreign_top_symbols) {
      auto* top = static_cast<void**>(::dlsym(handle, symbol));
      if (top != nullptr && *top != &mark && std::find(now.tops.begin(), now.tops.end(), top) == now.tops.end())
        now.tops.push_back(top);
    }
    ::dlclose(handle);
  }
  own = saved;
  now.scanned = true;
  found = std::move(now);
  return found.tops;
}

}  // namespace

asio_memory_scope::fiber_switch::fiber_switch(fiber_call_stacks& fiber)
    : stepped_aside_(nullptr), fiber_(fiber), foreign_(foreign_tops()) {
  asio_memory_scope* s = innermost_scope;
  if (s != nullptr && s->pushed_ && call_stack::top() == &s->cache_) {
    s->pushed_.reset();
    stepped_aside_ = s;
  }
  call_stack_top& top = asio_call_stack_top();
  outer_top_ = static_cast<thread_call_stack::context*>(top);
  top = static_cast<thread_call_stack::context*>(fiber_.top);
  if (foreign_.empty()) return;
  fiber_.foreign.resize(foreign_.size(), nullptr);  // a copy loaded since the fiber last ran starts empty
  outer_foreign_.reserve(foreign_.size());
  for (std::size_t i = 0; i < foreign_.size(); ++i) {
    outer_foreign_.push_back(*foreign_[i]);
    *foreign_[i] = fiber_.foreign[i];
  }
}

asio_memory_scope::fiber_switch::~fiber_switch() {
  call_stack_top& top = asio_call_stack_top();
  fiber_.top = static_cast<thread_call_stack::context*>(top);
  top = static_cast<thread_call_stack::context*>(outer_top_);
  for (std::size_t i = 0; i < outer_foreign_.size() && i < foreign_.size(); ++i) {  // a rescan meanwhile may shorten it
    fiber_.foreign[i] = *foreign_[i];
    *foreign_[i] = outer_foreign_[i];
  }
  if (stepped_aside_ != nullptr) stepped_aside_->push();  // above what the fiber left running
}

}  // namespace simasio::detail
