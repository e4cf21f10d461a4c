// linearizability.cpp — require_linearizable's failure: the lane diagram on disk, then the exception
#include <simasio/check/linearizability.hpp>
#include <simasio/detail/current.hpp>
#include <simasio/detail/env.hpp>
#include <simasio/detail/world_core.hpp>

#include <filesystem>
#include <fstream>
#include <system_error>

namespace simasio::detail::lin {

void fail(const std::string& explanation, const std::string& name,
          const std::function<std::string(const std::string& title)>& html) {
  std::string seed = "unknown";
  if (world_core* core = current_core()) seed = std::to_string(core->options().seed);
  const std::filesystem::path dir = env_string("SIMASIO_ARTIFACTS").value_or(".simasio");
  const std::filesystem::path file = dir / (name + "-seed" + seed + ".html");
  std::string where;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::ofstream out(file);
  if (out) {
    out << html(name + ", seed " + seed);
    where = "lane diagram: " + file.string();
  }
  throw linearizability_error(explanation + where);
}

}  // namespace simasio::detail::lin
