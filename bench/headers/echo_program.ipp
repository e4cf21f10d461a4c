// echo_program.ipp — the program both header-cost TUs compile: `net` is
// boost::asio in one and simasio::asio in the other.
class session : public std::enable_shared_from_this<session> {
 public:
  explicit session(tcp::socket s) : socket_(std::move(s)) {}
  void start() {
    auto self = shared_from_this();
    socket_.async_read_some(net::buffer(data_), [this, self](boost::system::error_code ec, std::size_t n) {
      if (!ec) net::async_write(socket_, net::buffer(data_, n), [this, self](boost::system::error_code e, std::size_t) {
        if (!e) start();
      });
    });
  }

 private:
  tcp::socket socket_;
  std::array<char, 512> data_{};
};

inline void run_echo(net::io_context& server_io, net::io_context& client_io) {
  auto acceptor = std::make_shared<tcp::acceptor>(server_io, tcp::endpoint(tcp::v4(), 7000));
  acceptor->async_accept([acceptor](boost::system::error_code ec, tcp::socket s) {
    if (!ec) std::make_shared<session>(std::move(s))->start();
  });
  auto socket = std::make_shared<tcp::socket>(client_io);
  auto resolver = std::make_shared<tcp::resolver>(client_io);
  auto line = std::make_shared<std::string>("hello\n");
  auto reply = std::make_shared<std::string>();
  auto timer = std::make_shared<net::steady_timer>(client_io, std::chrono::seconds(5));
  timer->async_wait([socket](boost::system::error_code ec) {
    if (!ec) socket->close();
  });
  auto strand = net::make_strand(client_io);
  resolver->async_resolve("server", "7000", [=](boost::system::error_code ec, tcp::resolver::results_type r) {
    if (ec) return;
    net::async_connect(*socket, r, net::bind_executor(strand, [=](boost::system::error_code e, const tcp::endpoint&) {
      if (e) return;
      net::async_write(*socket, net::buffer(*line), [=](boost::system::error_code, std::size_t) {
        net::async_read_until(*socket, net::dynamic_buffer(*reply), '\n',
                              [=](boost::system::error_code, std::size_t) { timer->cancel(); });
      });
    }));
  });
}
