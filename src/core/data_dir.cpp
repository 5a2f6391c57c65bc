#include "src/core/data_dir.h"

#include "src/core/atomic_file.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

namespace pperf {

std::string data_dir() {
  namespace fs = std::filesystem;
  std::vector<fs::path> candidates;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) candidates.push_back(self.parent_path().parent_path() / "share" / "pperf");
  if (const char* env = std::getenv("PPERF_DATA_DIR"); env && *env) candidates.emplace_back(env);
  candidates.emplace_back(PPERF_SOURCE_DIR);
  std::string looked;
  for (const auto& c : candidates) {
    if (fs::is_directory(c / "pricing" / "tables", ec)) return c.string();
    looked += (looked.empty() ? "" : ", ") + c.string();
  }
  throw std::runtime_error("pperf's data (pricing/tables) not found in " + looked);
}

std::string find_shipped_script(const std::string& pperf_binary, const std::string& name) {
  namespace fs = std::filesystem;
  std::vector<fs::path> candidates = {fs::path(pperf_binary).parent_path() / name};
  try {
    candidates.push_back(fs::path(data_dir()) / "python" / name);
  } catch (const std::exception&) {
  }
  std::string looked;
  for (const auto& c : candidates) {
    std::error_code ec;
    if (fs::is_regular_file(c, ec)) return c.string();
    looked += (looked.empty() ? "" : ", ") + c.string();
  }
  throw std::runtime_error(name + " not found (looked at " + looked + ")");
}

std::string cache_dir() {
  if (const char* dir = std::getenv("PPERF_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/pperf";
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.cache/pperf";
}

nlohmann::json read_json_cache(const std::string& path) {
  try {
    std::ifstream in(path);
    if (in) {
      nlohmann::json cache = nlohmann::json::parse(in);
      if (cache.is_object()) return cache;
    }
  } catch (const std::exception&) {
  }
  return nlohmann::json::object();
}

void write_json_cache(const std::string& path, const nlohmann::json& cache) {
  try {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    write_file_atomically(path, cache.dump(2) + "\n");
  } catch (const std::exception&) {
  }
}

}  // namespace pperf
