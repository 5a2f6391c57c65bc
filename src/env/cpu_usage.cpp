#include "src/env/cpu_usage.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <algorithm>
#include <map>
#include <sstream>

namespace pperf {

namespace {
/// utime + stime (seconds) and the parent pid from a /proc stat file; the command name in
/// parentheses may hold spaces, so fields are counted after its closing ')'.
bool read_stat(const std::string& path, double& cpu_s, int& ppid) {
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line)) return false;
  const auto close = line.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream rest(line.substr(close + 2));
  std::string state;
  long long fields[13] = {};  // ppid .. stime: fields 4..15 of stat(5)
  rest >> state;
  for (auto& f : fields) rest >> f;
  if (!rest) return false;
  ppid = static_cast<int>(fields[0]);
  cpu_s = static_cast<double>(fields[10] + fields[11]) / static_cast<double>(::sysconf(_SC_CLK_TCK));
  return true;
}

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}
}  // namespace

std::pair<double, double> own_threads_cpu_s(const std::string& prefix) {
  std::pair<double, double> split{0, 0};
  std::error_code error;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", error)) {
    double cpu = 0;
    int ppid = 0;
    // schedstat's nanoseconds where the kernel keeps them: stat's clock ticks (10 ms) miss most
    // of a short run's loader work.
    std::ifstream schedstat(task.path().string() + "/schedstat");
    long long run_ns = 0;
    if (schedstat >> run_ns) cpu = static_cast<double>(run_ns) / 1e9;
    else if (!read_stat(task.path().string() + "/stat", cpu, ppid)) continue;
    (first_line(task.path().string() + "/comm").rfind(prefix, 0) == 0 ? split.second : split.first) += cpu;
  }
  return split;
}

double processes_cpu_s(const std::vector<int>& pids) {
  std::map<int, std::pair<int, double>> all;  // pid -> (ppid, cpu seconds)
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    double cpu = 0;
    int ppid = 0;
    if (read_stat(entry.path().string() + "/stat", cpu, ppid)) all[std::stoi(name)] = {ppid, cpu};
  }
  double total = 0;
  for (const auto& [pid, info] : all) {
    for (int p = pid, hops = 0; p > 1 && hops < 64; ++hops) {  // is one of `pids` an ancestor (or itself)?
      if (std::find(pids.begin(), pids.end(), p) != pids.end()) {
        total += info.second;
        break;
      }
      const auto up = all.find(p);
      if (up == all.end()) break;
      p = up->second.first;
    }
  }
  return total;
}

double host_busy_cpu_s() {
  std::ifstream in("/proc/stat");
  std::string cpu;
  long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  if (!(in >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal) || cpu != "cpu") return 0;
  return static_cast<double>(user + nice + system + irq + softirq + steal) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

double load_average_1m() {
  std::ifstream in("/proc/loadavg");
  double one = 0;
  return in >> one ? one : 0;
}

}  // namespace pperf
