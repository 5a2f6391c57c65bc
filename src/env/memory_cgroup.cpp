#include "src/env/memory_cgroup.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "src/env/host_info.h"

namespace pperf {

namespace fs = std::filesystem;

namespace {
bool write_file(const std::string& path, const std::string& value) {
  std::ofstream out(path);
  out << value;
  out.flush();
  return static_cast<bool>(out);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The value after `key` on a "key value" line of a cgroup file (memory.events, memory.oom_control).
int64_t keyed_value(const std::string& path, const std::string& key) {
  std::istringstream lines(read_file(path));
  std::string k;
  int64_t v = 0;
  while (lines >> k >> v)
    if (k == key) return v;
  return 0;
}

/// Where this process's memory cgroup is, as a directory, and the hierarchy's version.
struct OwnGroup {
  std::string dir;
  int version = 0;
};

/// The mount point and root of the cgroup hierarchy holding `controller` (v1) or of cgroup2.
std::optional<std::pair<std::string, std::string>> cgroup_mount(bool v2, const std::string& controller) {
  std::ifstream mountinfo("/proc/self/mountinfo");
  std::string line;
  while (std::getline(mountinfo, line)) {
    // "id parent major:minor root mount-point options ... - fstype source super-options"
    std::istringstream fields(line);
    std::string id, parent, dev, root, point;
    fields >> id >> parent >> dev >> root >> point;
    const size_t dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    std::istringstream tail(line.substr(dash + 3));
    std::string fstype, source, super;
    tail >> fstype >> source >> super;
    if (v2 && fstype == "cgroup2") return std::make_pair(point, root);
    if (!v2 && fstype == "cgroup") {
      std::istringstream options(super);
      for (std::string o; std::getline(options, o, ',');)
        if (o == controller) return std::make_pair(point, root);
    }
  }
  return std::nullopt;
}

std::string join_under_mount(const std::pair<std::string, std::string>& mount, std::string path) {
  const std::string& root = mount.second;
  if (root != "/" && path.rfind(root, 0) == 0) path = path.substr(root.size());
  return mount.first + (path == "/" ? "" : path);
}

std::optional<OwnGroup> own_memory_group(std::string& why_not) {
  std::ifstream self("/proc/self/cgroup");
  std::string line, v2_path;
  std::optional<OwnGroup> v1;
  while (std::getline(self, line)) {
    const size_t first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1), path = line.substr(second + 1);
    if (controllers.empty()) {
      v2_path = path;
      continue;
    }
    std::istringstream names(controllers);
    for (std::string name; std::getline(names, name, ',');)
      if (name == "memory")
        if (auto mount = cgroup_mount(false, "memory")) v1 = OwnGroup{join_under_mount(*mount, path), 1};
  }
  if (!v2_path.empty())
    if (auto mount = cgroup_mount(true, "")) {
      const std::string dir = join_under_mount(*mount, v2_path);
      if (read_file(dir + "/cgroup.controllers").find("memory") != std::string::npos) return OwnGroup{dir, 2};
    }
  if (v1) return v1;
  why_not = "no memory cgroup controller is mounted for this process";
  return std::nullopt;
}
/// Groups a pperf killed outright (SIGKILL: no destructor ran) left behind: empty once the
/// kernel ended their processes with it, removed by the next pperf that makes one.
void remove_orphaned_groups(const std::string& parent) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(parent, ec)) {
    const std::string name = entry.path().filename().string();
    int pid = 0;
    if (std::sscanf(name.c_str(), "pperf-%d-", &pid) != 1 || pid <= 0 || pid == getpid()) continue;
    if (!fs::exists("/proc/" + std::to_string(pid), ec)) ::rmdir(entry.path().c_str());  // fails while not empty: kept
  }
}
}  // namespace

std::optional<MemoryCgroup> MemoryCgroup::create(int64_t limit_bytes, std::string& why_not) {
  if (const char* off = std::getenv("PPERF_NO_MEMORY_CGROUP"); off && *off) {
    why_not = "PPERF_NO_MEMORY_CGROUP is set";
    return std::nullopt;
  }
  const std::optional<OwnGroup> own = own_memory_group(why_not);
  if (!own) return std::nullopt;
  remove_orphaned_groups(own->dir);
  static std::atomic<int> sequence{0};
  const std::string dir = own->dir + "/pperf-" + std::to_string(getpid()) + "-" + std::to_string(sequence++);
  std::error_code ec;
  if (own->version == 2 && read_file(own->dir + "/cgroup.subtree_control").find("memory") == std::string::npos &&
      !write_file(own->dir + "/cgroup.subtree_control", "+memory")) {
    why_not = "cgroup v2: the memory controller cannot be enabled under " + own->dir + " (not delegated to pperf)";
    return std::nullopt;
  }
  if (!fs::create_directory(dir, ec) || ec) {
    why_not = "cannot create the memory cgroup " + dir + ": " + (ec ? ec.message() : std::string("it exists"));
    return std::nullopt;
  }
  MemoryCgroup group(dir, own->version, limit_bytes);
  const std::string limit = std::to_string(limit_bytes);
  bool limited = false;
  if (own->version == 2) {
    limited = write_file(dir + "/memory.max", limit);
    if (fs::exists(dir + "/memory.swap.max")) write_file(dir + "/memory.swap.max", "0");
    if (fs::exists(dir + "/memory.oom.group")) write_file(dir + "/memory.oom.group", "1");  // the item ends whole
  } else {
    limited = write_file(dir + "/memory.limit_in_bytes", limit);
    // Swap counts too where the kernel accounts it: an item over the bound ends, never pages the host out.
    if (fs::exists(dir + "/memory.memsw.limit_in_bytes")) write_file(dir + "/memory.memsw.limit_in_bytes", limit);
  }
  if (!limited) {
    why_not = "cannot set the limit of the memory cgroup " + dir + ": " + std::strerror(errno);
    return std::nullopt;  // group's destructor removes the directory
  }
  return group;
}

MemoryCgroup::MemoryCgroup(MemoryCgroup&& other) noexcept
    : dir_(std::move(other.dir_)), version_(other.version_), limit_bytes_(other.limit_bytes_) {
  other.dir_.clear();
}

MemoryCgroup::~MemoryCgroup() {
  if (dir_.empty()) return;
  // Whatever the item left behind ends with it; the group can go once it is empty.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (std::chrono::steady_clock::now() < deadline) {
    for (int pid : pids()) ::kill(pid, SIGKILL);
    if (::rmdir(dir_.c_str()) == 0 || errno == ENOENT) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::optional<int64_t> MemoryCgroup::peak_bytes() const {
  const std::string file = dir_ + (version_ == 2 ? "/memory.peak" : "/memory.max_usage_in_bytes");
  std::ifstream in(file);
  int64_t v = 0;
  if (in >> v) return v;
  return std::nullopt;
}

int64_t MemoryCgroup::oom_kills() const {
  return version_ == 2 ? keyed_value(dir_ + "/memory.events", "oom_kill") : keyed_value(dir_ + "/memory.oom_control", "oom_kill");
}

std::vector<int> MemoryCgroup::pids() const {
  std::ifstream in(procs_path());
  std::vector<int> out;
  for (int pid = 0; in >> pid;) out.push_back(pid);
  return out;
}

std::vector<int> child_pids(int pid) {
  std::vector<int> out;
  // Every thread's children: a process's children may hang off any of its threads.
  std::error_code ec;
  for (const auto& task : fs::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    std::ifstream children(task.path() / "children");
    for (int child = 0; children >> child;) out.push_back(child);
  }
  return out;
}

std::string process_name(int pid) {
  std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(comm, name);
  return name;
}

int64_t tree_rss_bytes(int pid) {
  int64_t total = rss_bytes(pid);
  for (int child : child_pids(pid)) total += tree_rss_bytes(child);
  return total;
}

namespace {
std::atomic<int64_t>* shared_counter(void* shared) { return static_cast<std::atomic<int64_t>*>(shared); }
void* map_counter(int fd) {
  void* p = ::mmap(nullptr, sizeof(std::atomic<int64_t>), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  return p == MAP_FAILED ? nullptr : p;
}
}  // namespace

StepBeacon StepBeacon::create() {
  static std::atomic<int> sequence{0};
  const std::string dir = fs::is_directory("/dev/shm") ? "/dev/shm" : fs::temp_directory_path().string();
  const std::string path = dir + "/pperf-steps-" + std::to_string(getpid()) + "-" + std::to_string(sequence++);
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw std::runtime_error("cannot create " + path + ": " + std::strerror(errno));
  void* shared = ::ftruncate(fd, sizeof(std::atomic<int64_t>)) == 0 ? map_counter(fd) : nullptr;
  if (!shared) {
    ::close(fd);
    ::unlink(path.c_str());
    throw std::runtime_error("cannot map " + path);
  }
  return StepBeacon(path, fd, shared, true);
}

StepBeacon* StepBeacon::from_environment() {
  static StepBeacon* beacon = []() -> StepBeacon* {
    const char* path = std::getenv(kEnvironment);
    if (!path || !*path) return nullptr;
    const int fd = ::open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) return nullptr;
    void* shared = map_counter(fd);
    if (!shared) return ::close(fd), nullptr;
    return new StepBeacon(path, fd, shared, false);  // lives as long as the process
  }();
  return beacon;
}

StepBeacon::StepBeacon(StepBeacon&& other) noexcept
    : path_(std::move(other.path_)), fd_(other.fd_), shared_(other.shared_), owner_(other.owner_) {
  other.fd_ = -1, other.shared_ = nullptr, other.owner_ = false;
}

StepBeacon::~StepBeacon() {
  if (shared_) ::munmap(shared_, sizeof(std::atomic<int64_t>));
  if (fd_ >= 0) ::close(fd_);
  if (owner_) ::unlink(path_.c_str());
}

void StepBeacon::mark(bool warmup, int64_t index) {
  shared_counter(shared_)->store(warmup ? -index : index, std::memory_order_relaxed);
}

std::string StepBeacon::describe() const {
  const int64_t v = shared_counter(shared_)->load(std::memory_order_relaxed);
  if (v == 0) return "";
  return v < 0 ? "warm-up step " + std::to_string(-v) : "step " + std::to_string(v);
}

}  // namespace pperf
