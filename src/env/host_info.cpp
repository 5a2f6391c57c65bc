#include "src/env/host_info.h"

#include <link.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "src/env/gpu_info.h"
#include "src/core/process.h"

#include <array>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <thread>

namespace pperf {

namespace {
std::string first_line_matching(const std::string& file, const std::string& prefix) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(prefix, 0) == 0) return line;
  return "";
}

std::string after_colon(const std::string& line) {
  auto pos = line.find(':');
  if (pos == std::string::npos) return "unknown";
  auto value = line.substr(pos + 1);
  value.erase(0, value.find_first_not_of(" \t"));
  return value;
}

int blas_callback(struct dl_phdr_info* info, size_t, void* data) {
  auto* found = static_cast<std::vector<std::string>*>(data);
  std::string name = info->dlpi_name ? info->dlpi_name : "";
  auto base = std::filesystem::path(name).filename().string();
  if (base.find("blas") != std::string::npos || base.find("mkl_rt") != std::string::npos)
    found->push_back(name);
  return 0;
}
}  // namespace

nlohmann::json loaded_blas() {
  std::vector<std::string> paths;
  dl_iterate_phdr(blas_callback, &paths);
  nlohmann::json libs = nlohmann::json::array();
  std::string library = "none loaded";
  for (const auto& p : paths) {
    std::error_code ec;
    auto real = std::filesystem::canonical(p, ec);
    std::string resolved = ec ? p : real.string();
    // Debian puts each implementation in its own directory: .../openblas-pthread/libblas.so.3,
    // .../blas/libblas.so.3 (the slow reference BLAS).
    std::string dir = std::filesystem::path(resolved).parent_path().filename().string();
    std::string name = dir == "blas" ? "reference (netlib)" : dir;
    if (resolved.find("libopenblas") != std::string::npos) name = "openblas";
    if (libs.empty()) library = name;
    libs.push_back({{"library", name}, {"path", resolved}});
  }
  return {{"library", library}, {"loaded", libs}};
}

namespace {
/// A "Name:   123 kB" line of a /proc status file, in bytes.
int64_t kib_field(const std::string& file, const std::string& name) {
  const std::string value = after_colon(first_line_matching(file, name + ":"));
  try {
    return value == "unknown" ? 0 : std::stoll(value) * 1024;
  } catch (const std::exception&) {
    return 0;
  }
}
}  // namespace

namespace {
std::string status_file(int pid) { return pid == 0 ? "/proc/self/status" : "/proc/" + std::to_string(pid) + "/status"; }
}  // namespace

int64_t peak_rss_bytes(int pid) { return kib_field(status_file(pid), "VmHWM"); }
int64_t rss_bytes(int pid) { return kib_field(status_file(pid), "VmRSS"); }
bool reset_peak_rss() {
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";  // 5: reset the peak resident set size (Documentation/filesystems/proc.rst)
  clear.flush();
  return static_cast<bool>(clear);
}
int64_t available_memory_bytes() { return kib_field("/proc/meminfo", "MemAvailable"); }


std::string hostname() {
  char name[256] = {};
  return ::gethostname(name, sizeof name - 1) == 0 && name[0] ? name : "unknown";
}

nlohmann::json capture_host(const std::vector<std::string>& argv) {
  nlohmann::json host;
  host["hostname"] = hostname();
  struct utsname u {};
  if (uname(&u) == 0) host["kernel"] = std::string(u.sysname) + " " + u.release + " " + u.machine;
  std::string pretty = first_line_matching("/etc/os-release", "PRETTY_NAME=");
  host["os"] = pretty.empty() ? "unknown" : pretty.substr(13, pretty.size() - 14);
  host["cpu_model"] = after_colon(first_line_matching("/proc/cpuinfo", "model name"));
  host["logical_cpus"] = std::thread::hardware_concurrency();
  const std::vector<int> usable = allowed_cpus();
  host["usable_cpus"] = usable.empty() ? -1 : static_cast<int64_t>(usable.size());
  std::string mem = after_colon(first_line_matching("/proc/meminfo", "MemTotal"));
  host["memory_gib"] = mem == "unknown" ? 0.0 : std::round(std::stod(mem) / (1024.0 * 1024.0) * 10) / 10;
  host["blas"] = loaded_blas();
  if (nlohmann::json gpu = nvidia_gpu_facts(); !gpu.is_null()) host["gpu"] = std::move(gpu);
  host["argv"] = argv;
  return host;
}

}  // namespace pperf
