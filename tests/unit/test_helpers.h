#pragma once
// Small helpers shared by tests: temporary files that clean up after themselves, and where the
// real files others wrote live.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace pperf::testing {

/// This checkout's root and the build folder the test binary was built in (tests/unit/test_paths.cpp).
std::string source_dir();
std::string binary_dir();

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "pperf-test-XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }
  std::string write(const std::string& name, const std::string& contents) const {
    std::string file = path_ + "/" + name;
    std::filesystem::create_directories(std::filesystem::path(file).parent_path());
    std::ofstream(file) << contents;
    return file;
  }

 private:
  std::string path_;
};

/// The folder of real files written by others (DESIGN.md §9): $PPERF_REAL_DATA, else
/// ../shared/real-data; a relative folder is taken from the project root. A test that reads it
/// starts with PPERF_NEEDS_REAL_DATA(), so it is skipped, with one line naming the folder, where
/// the folder is absent (a user's clone).
inline std::string real_data_dir() {
  const char* env = std::getenv("PPERF_REAL_DATA");
  const std::filesystem::path dir = env && *env ? env : "../shared/real-data";
  return (dir.is_absolute() ? dir : std::filesystem::path(source_dir()) / dir).lexically_normal().string();
}

}  // namespace pperf::testing

#define PPERF_NEEDS_REAL_DATA()                                                                              \
  do {                                                                                                       \
    if (!std::filesystem::is_directory(::pperf::testing::real_data_dir()))                                   \
      GTEST_SKIP() << "needs the real files in " << ::pperf::testing::real_data_dir() << " (PPERF_REAL_DATA)"; \
  } while (false)
