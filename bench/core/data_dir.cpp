#include "bench/core/data_dir.h"

#include <cstdlib>
#include <filesystem>
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

}  // namespace pperf
