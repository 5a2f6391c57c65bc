#pragma once
// Small helpers shared by tests: temporary files that clean up after themselves.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace pperf::testing {

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

}  // namespace pperf::testing
