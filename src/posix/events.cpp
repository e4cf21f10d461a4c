// events.cpp — poll, select and epoll over a simulated process's descriptors, in virtual time
//
// poll() and select() ask each descriptor its mask and, when none is ready,
// wait until one changes or the timeout passes, on the host's virtual time.
// An epoll set keeps Linux's ready list: a watched object that changes is
// put on it; epoll_wait reports each item on it whose mask (against the
// item's interest) is not empty, keeps a level-triggered item there, takes
// an edge-triggered one off (it comes back at the object's next change)
// and disables a one-shot one until EPOLL_CTL_MOD.
#include "descriptors.hpp"

#include <simasio/detail/current.hpp>
#include <simasio/detail/interpose.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <poll.h>
#include <sys/epoll.h>
#include <sys/select.h>

namespace simasio::detail::posix {

struct epoll_set final : desc_object {
  epoll_set(world_core& c, std::uint32_t o) : desc_object(desc_kind::epoll, c, o) {}
  ~epoll_set() override { clear(); }
  std::vector<std::unique_ptr<epoll_item>> items;  // in registration order
  std::vector<epoll_item*> ready;                  // Linux's ready list, in order

  unsigned events() const noexcept override {
    for (const epoll_item* i : ready)
      if ((i->obj->events() & (i->interest | POLLERR | POLLHUP)) != 0) return POLLIN;
    return 0;
  }
  duration next_change() const noexcept override {
    duration d = duration::max();
    for (const auto& i : items) d = std::min(d, i->obj->next_change());
    return d;
  }
  void catch_up() noexcept override {
    for (const auto& i : items) i->obj->catch_up();
  }
  long read_some(void*, std::size_t) override { return -EINVAL; }
  long write_some(const void*, std::size_t) override { return -EINVAL; }
  void last_close() noexcept override { clear(); }

  epoll_item* item_of(int fd, const desc_object* obj) const noexcept {
    for (const auto& i : items)
      if (i->fd == fd && i->obj == obj) return i.get();
    return nullptr;
  }
  void unready(epoll_item* item) noexcept {
    if (!item->on_ready_list) return;
    item->on_ready_list = false;
    ready.erase(std::find(ready.begin(), ready.end(), item));
  }
  void remove(epoll_item* item) noexcept {
    unready(item);
    auto& w = item->obj->watchers;
    w.erase(std::find(w.begin(), w.end(), item));
    items.erase(std::find_if(items.begin(), items.end(), [item](const auto& p) { return p.get() == item; }));
  }
  void clear() noexcept {
    while (!items.empty()) remove(items.back().get());
  }
};

void forget_watchers(desc_object& obj) noexcept {
  while (!obj.watchers.empty()) {
    epoll_item* item = obj.watchers.back();
    item->set->remove(item);
  }
}

void mark_ready(epoll_item& item) noexcept {
  if (item.on_ready_list || (item.interest & ~(EPOLLET | EPOLLONESHOT | EPOLLEXCLUSIVE | EPOLLWAKEUP)) == 0) return;
  item.on_ready_list = true;
  item.set->ready.push_back(&item);
  item.set->changed();
}

}  // namespace simasio::detail::posix

namespace simasio::detail::interpose {

using namespace posix;

int posix_poll(pollfd* fds, unsigned long n, long long timeout_ns, int (*real_poll)(pollfd*, unsigned long, int)) {
  world_core& c = *running_core_tls;
  std::vector<std::shared_ptr<desc_object>> held;  // alive though another thread closes one meanwhile
  std::vector<desc_object*> objs;
  for (unsigned long i = 0; i < n; ++i) {
    if (fds[i].fd < 0) continue;
    if (auto d = shared(fds[i].fd)) {
      objs.push_back(d.get());
      held.push_back(std::move(d));
    }
  }
  int count = 0;
  auto collect = [&] {
    count = 0;
    for (unsigned long i = 0; i < n; ++i) {
      pollfd& p = fds[i];
      p.revents = 0;
      if (p.fd < 0) continue;
      if (desc_object* d = find(p.fd)) {
        p.revents = static_cast<short>(d->events() & (static_cast<unsigned>(p.events) | POLLERR | POLLHUP | POLLNVAL));
      } else if (real_poll != nullptr) {
        pollfd one{p.fd, p.events, 0};
        if (real_poll(&one, 1, 0) > 0) p.revents = one.revents;  // a real descriptor: asked, never waited on
      }
      if (p.revents != 0) ++count;
    }
    return count > 0;
  };
  const duration deadline = deadline_ns(c, timeout_ns);
  if (!wait_for(c, objs, deadline, "poll()", collect) && c.now() < deadline) return -1;
  return count;
}

int posix_select(int nfds, void* read_set, void* write_set, void* except_set, long long timeout_ns) {
  auto* r = static_cast<fd_set*>(read_set);
  auto* w = static_cast<fd_set*>(write_set);
  auto* x = static_cast<fd_set*>(except_set);
  if (nfds < 0 || nfds > FD_SETSIZE) return fail(EINVAL);
  world_core& c = *running_core_tls;
  std::vector<std::shared_ptr<desc_object>> held;
  std::vector<desc_object*> objs;
  fd_set in_r, in_w, in_x;
  FD_ZERO(&in_r);
  FD_ZERO(&in_w);
  FD_ZERO(&in_x);
  if (r != nullptr) in_r = *r;
  if (w != nullptr) in_w = *w;
  if (x != nullptr) in_x = *x;
  for (int fd = 0; fd < nfds; ++fd) {
    const bool asked = (r != nullptr && FD_ISSET(fd, &in_r)) || (w != nullptr && FD_ISSET(fd, &in_w)) ||
                       (x != nullptr && FD_ISSET(fd, &in_x));
    if (!asked) continue;
    auto d = shared(fd);
    if (!d) return fail(EBADF);  // a real descriptor in a simulated process's select: not modelled
    objs.push_back(d.get());
    held.push_back(std::move(d));
  }
  int count = 0;
  auto collect = [&] {
    count = 0;
    if (r != nullptr) FD_ZERO(r);
    if (w != nullptr) FD_ZERO(w);
    if (x != nullptr) FD_ZERO(x);
    for (int fd = 0; fd < nfds; ++fd) {
      desc_object* d = find(fd);
      if (d == nullptr) continue;
      const unsigned m = d->events();
      if (r != nullptr && FD_ISSET(fd, &in_r) && (m & (POLLIN | POLLHUP | POLLERR)) != 0) {
        FD_SET(fd, r);
        ++count;
      }
      if (w != nullptr && FD_ISSET(fd, &in_w) && (m & (POLLOUT | POLLERR)) != 0) {
        FD_SET(fd, w);
        ++count;
      }
      if (x != nullptr && FD_ISSET(fd, &in_x) && (m & POLLPRI) != 0) {
        FD_SET(fd, x);
        ++count;
      }
    }
    return count > 0;
  };
  const duration deadline = deadline_ns(c, timeout_ns);
  if (!wait_for(c, objs, deadline, "select()", collect) && c.now() < deadline) return -1;
  return count;
}

int posix_epoll_create(int flags) {
  world_core& c = *running_core_tls;
  return install(std::make_shared<epoll_set>(c, caller(c)), (flags & EPOLL_CLOEXEC) != 0);
}

int posix_epoll_ctl(int epfd, int op, int fd, epoll_event* ev) {
  desc_object* e = find(epfd);
  if (e == nullptr) return fail(EBADF);
  if (e->kind != desc_kind::epoll) return fail(EINVAL);
  auto& set = static_cast<epoll_set&>(*e);
  desc_object* d = find(fd);
  if (d == nullptr) return fail(EPERM);  // a real descriptor (a regular file, as Linux says EPERM for)
  if (d == e) return fail(EINVAL);
  epoll_item* item = set.item_of(fd, d);
  switch (op) {
    case EPOLL_CTL_ADD: {
      if (item != nullptr) return fail(EEXIST);
      if (ev == nullptr) return fail(EFAULT);
      auto fresh = std::make_unique<epoll_item>();
      fresh->set = &set;
      fresh->fd = fd;
      fresh->obj = d;
      fresh->interest = ev->events;
      fresh->data = ev->data.u64;
      item = fresh.get();
      set.items.push_back(std::move(fresh));
      d->watchers.push_back(item);
      if ((d->events() & (item->interest | POLLERR | POLLHUP)) != 0) mark_ready(*item);
      return 0;
    }
    case EPOLL_CTL_MOD:
      if (item == nullptr) return fail(ENOENT);
      if (ev == nullptr) return fail(EFAULT);
      item->interest = ev->events;
      item->data = ev->data.u64;
      if ((d->events() & (item->interest | POLLERR | POLLHUP)) != 0) mark_ready(*item);
      return 0;
    case EPOLL_CTL_DEL:
      if (item == nullptr) return fail(ENOENT);
      set.remove(item);
      return 0;
    default: return fail(EINVAL);
  }
}

int posix_epoll_wait(int epfd, epoll_event* events, int max, long long timeout_ns) {
  const std::shared_ptr<desc_object> held = shared(epfd);
  desc_object* e = held.get();
  if (e == nullptr) return fail(EBADF);
  if (e->kind != desc_kind::epoll) return fail(EINVAL);
  if (max <= 0) return fail(EINVAL);
  auto& set = static_cast<epoll_set&>(*e);
  world_core& c = *running_core_tls;
  int count = 0;
  auto collect = [&] {
    set.catch_up();
    count = 0;
    std::vector<epoll_item*> again;  // level-triggered items reported: back at the tail
    std::vector<epoll_item*> list = set.ready;
    for (epoll_item* item : list) {
      if (count == max) break;
      if (!item->on_ready_list) continue;
      const unsigned mask = item->obj->events() & (item->interest | POLLERR | POLLHUP);
      set.unready(item);
      if (mask == 0) continue;
      events[count].events = mask;
      events[count].data.u64 = item->data;
      ++count;
      if ((item->interest & EPOLLONESHOT) != 0) item->interest &= EPOLLONESHOT | EPOLLET;  // disabled until MOD
      else if ((item->interest & EPOLLET) == 0) again.push_back(item);
    }
    for (epoll_item* item : again) {
      item->on_ready_list = true;
      set.ready.push_back(item);
    }
    return count > 0;
  };
  const duration deadline = deadline_ns(c, timeout_ns);
  if (!wait_for(c, {e}, deadline, "epoll_wait()", collect) && c.now() < deadline) return -1;
  return count;
}

}  // namespace simasio::detail::interpose
