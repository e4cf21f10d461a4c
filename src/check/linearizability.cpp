// linearizability.cpp — require_linearizable's failure: the lane diagram on disk, then the exception
#include <simasio/check/linearizability.hpp>
#include <simasio/detail/artifact_file.hpp>
#include <simasio/detail/current.hpp>
#include <simasio/detail/env.hpp>
#include <simasio/detail/world_core.hpp>
#include <simasio/error.hpp>

#include <filesystem>
#include <system_error>

namespace simasio::detail::lin {

void fail(const std::string& explanation, const std::string& name,
          const std::function<std::string(const std::string& title)>& html) {
  std::string seed = "unknown";
  if (world_core* core = current_core()) seed = std::to_string(core->options().seed);
  const std::filesystem::path dir = [] {
    const auto set = env_string("SIMASIO_ARTIFACTS");
    return set && !set->empty() ? *set : std::string(".simasio");  // empty: check() refuses it
  }();
  const std::filesystem::path file = dir / (name + "-seed" + seed + ".html");
  std::string where;
  try {
    make_artifact_dir(dir.string());
    write_artifact(file.string(), html(name + ", seed " + seed));
    where = "lane diagram: " + file.string();
  } catch (const artifact_error& e) {
    where = std::string("lane diagram not written: ") + e.what();
  }
  throw linearizability_error(explanation + where);
}

}  // namespace simasio::detail::lin
