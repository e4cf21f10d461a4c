// error.cpp — the category of simasio's own error codes
#include <simasio/error.hpp>

#include <string>

namespace simasio::error {

namespace {
class sim_category final : public boost::system::error_category {
 public:
  const char* name() const noexcept override { return "simasio"; }
  std::string message(int ev) const override {
    switch (static_cast<sim_errors>(ev)) {
      case would_block:
        return "blocking operation called inside a simulated handler: it could never complete "
               "(use the asynchronous operation)";
      case stalled:
        return "the simulated world stalled before the operation could complete";
      case host_down:
        return "the simulated host is down";
    }
    return "simasio error " + std::to_string(ev);
  }
};
}  // namespace

const boost::system::error_category& get_sim_category() noexcept {
  static const sim_category category;
  return category;
}

}  // namespace simasio::error
