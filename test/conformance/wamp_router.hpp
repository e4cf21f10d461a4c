// wamp_router.hpp — a small WAMP router (RawSocket transport, MessagePack) for autobahn-cpp's examples
//
// autobahn-cpp is a WAMP client: its examples talk to a router (Crossbar.io
// in its documentation). The scenario provides one, on simasio's sockets:
// the RawSocket handshake, then length-prefixed MessagePack messages, with
// the basic profile's dealer (REGISTER, CALL, INVOCATION, YIELD, RESULT)
// and broker (SUBSCRIBE, PUBLISH, EVENT), HELLO/WELCOME and GOODBYE. One
// realm; every id comes from a counter, so the bytes on the wire depend on
// the seed's schedule only.
#ifndef SIMASIO_TEST_CONFORMANCE_WAMP_ROUTER_HPP
#define SIMASIO_TEST_CONFORMANCE_WAMP_ROUTER_HPP

#include <simasio/asio.hpp>

#include <msgpack.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace wamp {

namespace net = simasio::asio;
using net::ip::tcp;

enum : std::uint64_t {
  HELLO = 1, WELCOME = 2, ABORT = 3, GOODBYE = 6, ERROR = 8, PUBLISH = 16, PUBLISHED = 17, SUBSCRIBE = 32,
  SUBSCRIBED = 33, UNSUBSCRIBE = 34, UNSUBSCRIBED = 35, EVENT = 36, CALL = 48, RESULT = 50, REGISTER = 64,
  REGISTERED = 65, UNREGISTER = 66, UNREGISTERED = 67, INVOCATION = 68, YIELD = 70
};

class router;

// One client's connection: handshake, then messages in both directions.
class session : public std::enable_shared_from_this<session> {
 public:
  session(tcp::socket socket, router& r) : socket_(std::move(socket)), router_(r) {}
  void start();
  // Sends one message (a MessagePack array) after those already queued.
  void send(const msgpack::sbuffer& message);
  std::uint64_t id = 0;

 private:
  void read_header();
  void read_body(std::uint32_t length);
  void write_next();
  void closed();

  tcp::socket socket_;
  router& router_;
  std::array<unsigned char, 4> header_{};
  std::vector<char> body_;
  std::deque<std::string> out_;
  bool open_ = true;
};

class router {
 public:
  router(net::io_context& ioc, std::uint16_t port) : acceptor_(ioc, tcp::endpoint(tcp::v4(), port)) { accept(); }

  // What the router saw, for the scenario's checks.
  std::vector<std::string> log;
  bool registered(const std::string& procedure) const { return procedures_.count(procedure) != 0; }
  std::size_t subscribers(const std::string& topic) const {
    auto it = topics_.find(topic);
    return it == topics_.end() ? 0 : it->second.size();
  }

  void handle(const std::shared_ptr<session>& from, const msgpack::object& message);
  void gone(const std::shared_ptr<session>& s);

 private:
  struct registration {
    std::uint64_t id;
    std::weak_ptr<session> callee;
  };
  struct pending_call {
    std::uint64_t request;
    std::weak_ptr<session> caller;
  };
  struct subscription {
    std::uint64_t id;
    std::weak_ptr<session> subscriber;
  };

  void accept() {
    acceptor_.async_accept([this](boost::system::error_code ec, tcp::socket socket) {
      if (ec) return;
      auto s = std::make_shared<session>(std::move(socket), *this);
      s->start();
      accept();
    });
  }

  tcp::acceptor acceptor_;
  std::uint64_t next_id_ = 1;
  std::map<std::string, registration> procedures_;
  std::map<std::uint64_t, pending_call> invocations_;
  std::map<std::string, std::vector<subscription>> topics_;
};

namespace detail {

inline std::uint64_t u64(const msgpack::object& o) { return o.as<std::uint64_t>(); }
inline std::string str(const msgpack::object& o) { return o.as<std::string>(); }

// A message: its fields packed in order; `rest` are objects copied as they came.
template <class... F>
msgpack::sbuffer pack(std::size_t extra, const std::vector<msgpack::object>& rest, const F&... fields) {
  msgpack::sbuffer buffer;
  msgpack::packer<msgpack::sbuffer> pk(buffer);
  pk.pack_array(static_cast<std::uint32_t>(sizeof...(F) + extra));
  (pk.pack(fields), ...);
  for (const msgpack::object& o : rest) pk.pack(o);
  return buffer;
}

struct empty_dict {
  template <typename Packer>
  void msgpack_pack(Packer& pk) const {
    pk.pack_map(0);
  }
};

}  // namespace detail

inline void session::start() {
  auto self = shared_from_this();
  // The RawSocket handshake: 0x7F, max length and serializer, two reserved bytes.
  net::async_read(socket_, net::buffer(header_), [self](boost::system::error_code ec, std::size_t) {
    if (ec) return self->closed();
    const bool msgpack = self->header_[0] == 0x7F && (self->header_[1] & 0x0F) == 0x02;
    static const std::array<unsigned char, 4> accept{0x7F, 0xF2, 0x00, 0x00};
    static const std::array<unsigned char, 4> refuse{0x7F, 0x10, 0x00, 0x00};  // serializer unsupported
    net::async_write(self->socket_, net::buffer(msgpack ? accept : refuse),
                     [self, msgpack](boost::system::error_code wec, std::size_t) {
                       if (wec || !msgpack) return self->closed();
                       self->read_header();
                     });
  });
}

inline void session::read_header() {
  auto self = shared_from_this();
  net::async_read(socket_, net::buffer(header_), [self](boost::system::error_code ec, std::size_t) {
    if (ec) return self->closed();
    const std::uint32_t length = (std::uint32_t(self->header_[1]) << 16) | (std::uint32_t(self->header_[2]) << 8) |
                                 std::uint32_t(self->header_[3]);
    if ((self->header_[0] & 0x07) != 0) {  // a ping or pong frame: not used by autobahn-cpp
      return self->closed();
    }
    self->read_body(length);
  });
}

inline void session::read_body(std::uint32_t length) {
  auto self = shared_from_this();
  body_.resize(length);
  net::async_read(socket_, net::buffer(body_), [self](boost::system::error_code ec, std::size_t) {
    if (ec) return self->closed();
    msgpack::object_handle handle = msgpack::unpack(self->body_.data(), self->body_.size());
    self->router_.handle(self, handle.get());
    if (self->open_) self->read_header();
  });
}

inline void session::send(const msgpack::sbuffer& message) {
  if (!open_) return;
  std::string frame(4, '\0');
  const auto n = static_cast<std::uint32_t>(message.size());
  frame[1] = static_cast<char>((n >> 16) & 0xFF);
  frame[2] = static_cast<char>((n >> 8) & 0xFF);
  frame[3] = static_cast<char>(n & 0xFF);
  frame.append(message.data(), message.size());
  out_.push_back(std::move(frame));
  if (out_.size() == 1) write_next();
}

inline void session::write_next() {
  auto self = shared_from_this();
  net::async_write(socket_, net::buffer(out_.front()), [self](boost::system::error_code ec, std::size_t) {
    if (ec) return self->closed();
    self->out_.pop_front();
    if (!self->out_.empty()) self->write_next();
  });
}

inline void session::closed() {
  if (!open_) return;
  open_ = false;
  boost::system::error_code ignored;
  socket_.close(ignored);
  router_.gone(shared_from_this());
}

inline void router::gone(const std::shared_ptr<session>& s) {
  for (auto it = procedures_.begin(); it != procedures_.end();) {
    if (it->second.callee.lock() == s) it = procedures_.erase(it);
    else ++it;
  }
  for (auto& [topic, subs] : topics_) {
    subs.erase(std::remove_if(subs.begin(), subs.end(), [&](const subscription& x) { return x.subscriber.lock() == s; }),
               subs.end());
  }
}

inline void router::handle(const std::shared_ptr<session>& from, const msgpack::object& message) {
  using detail::pack;
  using detail::str;
  using detail::u64;
  if (message.type != msgpack::type::ARRAY || message.via.array.size == 0) return;
  const msgpack::object* f = message.via.array.ptr;
  const std::size_t n = message.via.array.size;
  const std::vector<msgpack::object> none;
  // Arguments and keyword arguments after `from_index`, copied through.
  auto tail = [&](std::size_t from_index) {
    std::vector<msgpack::object> rest;
    for (std::size_t i = from_index; i < n; ++i) rest.push_back(f[i]);
    return rest;
  };
  const std::uint64_t type = u64(f[0]);
  switch (type) {
    case HELLO: {  // [HELLO, Realm, Details]
      from->id = next_id_++;
      log.push_back("hello " + str(f[1]));
      msgpack::sbuffer buffer;
      msgpack::packer<msgpack::sbuffer> pk(buffer);
      pk.pack_array(3);
      pk.pack(std::uint64_t{WELCOME});
      pk.pack(from->id);
      pk.pack_map(1);
      pk.pack(std::string("roles"));
      pk.pack_map(2);
      pk.pack(std::string("broker"));
      pk.pack_map(0);
      pk.pack(std::string("dealer"));
      pk.pack_map(0);
      from->send(buffer);
      break;
    }
    case GOODBYE:  // [GOODBYE, Details, Reason]
      log.push_back("goodbye");
      from->send(pack(0, none, std::uint64_t{GOODBYE}, detail::empty_dict{}, std::string("wamp.close.goodbye_and_out")));
      break;
    case REGISTER: {  // [REGISTER, Request, Options, Procedure]
      const std::uint64_t request = u64(f[1]);
      const std::string procedure = str(f[3]);
      const std::uint64_t id = next_id_++;
      procedures_[procedure] = registration{id, from};
      log.push_back("register " + procedure);
      from->send(pack(0, none, std::uint64_t{REGISTERED}, request, id));
      break;
    }
    case UNREGISTER: {  // [UNREGISTER, Request, Registration]
      const std::uint64_t request = u64(f[1]), id = u64(f[2]);
      for (auto it = procedures_.begin(); it != procedures_.end(); ++it) {
        if (it->second.id == id) {
          procedures_.erase(it);
          break;
        }
      }
      from->send(pack(0, none, std::uint64_t{UNREGISTERED}, request));
      break;
    }
    case CALL: {  // [CALL, Request, Options, Procedure, Arguments?, ArgumentsKw?]
      const std::uint64_t request = u64(f[1]);
      const std::string procedure = str(f[3]);
      log.push_back("call " + procedure);
      auto it = procedures_.find(procedure);
      std::shared_ptr<session> callee = it == procedures_.end() ? nullptr : it->second.callee.lock();
      if (!callee) {
        from->send(pack(0, none, std::uint64_t{ERROR}, std::uint64_t{CALL}, request, detail::empty_dict{},
                        std::string("wamp.error.no_such_procedure")));
        break;
      }
      const std::uint64_t invocation = next_id_++;
      invocations_[invocation] = pending_call{request, from};
      const auto rest = tail(4);
      // [INVOCATION, Request, Registration, Details, Arguments?, ArgumentsKw?]
      callee->send(pack(rest.size(), rest, std::uint64_t{INVOCATION}, invocation, it->second.id,
                        detail::empty_dict{}));
      break;
    }
    case YIELD: {  // [YIELD, InvocationRequest, Options, Arguments?, ArgumentsKw?]
      auto it = invocations_.find(u64(f[1]));
      if (it == invocations_.end()) break;
      const pending_call call = it->second;
      invocations_.erase(it);
      log.push_back("yield");
      if (auto caller = call.caller.lock()) {
        const auto rest = tail(3);
        caller->send(pack(rest.size(), rest, std::uint64_t{RESULT}, call.request, detail::empty_dict{}));
      }
      break;
    }
    case ERROR: {  // a callee's error for an invocation: [ERROR, INVOCATION, Request, Details, Error, ...]
      if (n < 5 || u64(f[1]) != INVOCATION) break;
      auto it = invocations_.find(u64(f[2]));
      if (it == invocations_.end()) break;
      const pending_call call = it->second;
      invocations_.erase(it);
      if (auto caller = call.caller.lock()) {
        const auto rest = tail(5);
        caller->send(pack(rest.size(), rest, std::uint64_t{ERROR}, std::uint64_t{CALL}, call.request,
                          detail::empty_dict{}, str(f[4])));
      }
      break;
    }
    case SUBSCRIBE: {  // [SUBSCRIBE, Request, Options, Topic]
      const std::uint64_t request = u64(f[1]);
      const std::string topic = str(f[3]);
      const std::uint64_t id = next_id_++;
      topics_[topic].push_back(subscription{id, from});
      log.push_back("subscribe " + topic);
      from->send(pack(0, none, std::uint64_t{SUBSCRIBED}, request, id));
      break;
    }
    case UNSUBSCRIBE: {  // [UNSUBSCRIBE, Request, Subscription]
      const std::uint64_t request = u64(f[1]), id = u64(f[2]);
      for (auto& [topic, subs] : topics_)
        subs.erase(std::remove_if(subs.begin(), subs.end(), [&](const subscription& x) { return x.id == id; }),
                   subs.end());
      from->send(pack(0, none, std::uint64_t{UNSUBSCRIBED}, request));
      break;
    }
    case PUBLISH: {  // [PUBLISH, Request, Options, Topic, Arguments?, ArgumentsKw?]
      const std::uint64_t request = u64(f[1]);
      const std::string topic = str(f[3]);
      const std::uint64_t publication = next_id_++;
      log.push_back("publish " + topic);
      const auto rest = tail(4);
      for (const subscription& s : topics_[topic]) {
        auto subscriber = s.subscriber.lock();
        if (!subscriber || subscriber == from) continue;  // the publisher is excluded, as WAMP's default
        // [EVENT, Subscription, Publication, Details, Arguments?, ArgumentsKw?]
        subscriber->send(pack(rest.size(), rest, std::uint64_t{EVENT}, s.id, publication, detail::empty_dict{}));
      }
      bool acknowledge = false;
      if (f[2].type == msgpack::type::MAP) {
        for (std::uint32_t i = 0; i < f[2].via.map.size; ++i) {
          const msgpack::object_kv& kv = f[2].via.map.ptr[i];
          if (kv.key.type == msgpack::type::STR && str(kv.key) == "acknowledge" && kv.val.type == msgpack::type::BOOLEAN)
            acknowledge = kv.val.via.boolean;
        }
      }
      if (acknowledge) from->send(pack(0, none, std::uint64_t{PUBLISHED}, request, publication));
      break;
    }
    default:
      log.push_back("ignored message type " + std::to_string(type));
      break;
  }
}

}  // namespace wamp

#endif  // SIMASIO_TEST_CONFORMANCE_WAMP_ROUTER_HPP
