#pragma once
// A memory bound the kernel enforces on a group of processes (an item's measuring processes and
// the data workers they start): a memory cgroup of its own, v2 or v1, made under the one pperf
// runs in. Guarantees: every process that joins (SpawnOptions::join_cgroup = procs_path()) and
// everything it starts later are held to limit_bytes together, swap included where the kernel
// counts it; over it the kernel kills one of them and oom_kills() counts it. Destroying the
// bound kills what is still in the group and removes it: nothing an item started outlives it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pperf {

class MemoryCgroup {
 public:
  /// A new group limited to `limit_bytes`, or nullopt with `why_not` (no memory controller,
  /// no permission, a v2 hierarchy that does not delegate it, or PPERF_NO_MEMORY_CGROUP set:
  /// then the bound is polled).
  static std::optional<MemoryCgroup> create(int64_t limit_bytes, std::string& why_not);
  MemoryCgroup(MemoryCgroup&& other) noexcept;
  MemoryCgroup& operator=(MemoryCgroup&&) = delete;
  MemoryCgroup(const MemoryCgroup&) = delete;
  ~MemoryCgroup();

  /// "cgroup v1" or "cgroup v2".
  std::string kind() const { return version_ == 2 ? "cgroup v2" : "cgroup v1"; }
  /// The file a process writes "0" to, to join the group.
  std::string procs_path() const { return dir_ + "/cgroup.procs"; }
  int64_t limit_bytes() const { return limit_bytes_; }
  /// The group's high-water mark (resident memory and the page cache charged to it), bytes;
  /// nullopt where the kernel does not keep one (cgroup v2 before Linux 5.19).
  std::optional<int64_t> peak_bytes() const;
  /// How many of its processes the kernel killed for going over the limit.
  int64_t oom_kills() const;
  /// The processes in it now.
  std::vector<int> pids() const;

 private:
  MemoryCgroup(std::string dir, int version, int64_t limit_bytes) : dir_(std::move(dir)), version_(version), limit_bytes_(limit_bytes) {}
  std::string dir_;  // empty once moved from
  int version_ = 0;
  int64_t limit_bytes_ = 0;
};

/// The processes `pid` started that still run (the children of each of its threads).
std::vector<int> child_pids(int pid);

/// A process's command name as the kernel keeps it (/proc/PID/comm: "python3"); "" once it is gone.
std::string process_name(int pid);

/// Resident bytes now of `pid` and every process descended from it; 0 once it is gone. For
/// hosts without a memory cgroup: the bound is then polled, not enforced by the kernel.
int64_t tree_rss_bytes(int pid);

/// A step counter one process publishes and another reads while it runs (a small shared file):
/// the measuring process says which step it is on, so a parent that saw it killed can say when.
class StepBeacon {
 public:
  /// The reader's side: a new beacon file (removed on destruction). Throws when it cannot.
  static StepBeacon create();
  /// The writer's side: the beacon named by PPERF_STEP_BEACON, or nullptr (then marks are dropped).
  static StepBeacon* from_environment();
  StepBeacon(StepBeacon&& other) noexcept;
  StepBeacon& operator=(StepBeacon&&) = delete;
  ~StepBeacon();

  static constexpr const char* kEnvironment = "PPERF_STEP_BEACON";
  const std::string& path() const { return path_; }
  /// The writer: step `index` (from 1) of the warm-up or of the measured phase is starting.
  void mark(bool warmup, int64_t index);
  /// The reader: "warm-up step 2", "step 14"; empty before the first step.
  std::string describe() const;

 private:
  StepBeacon(std::string path, int fd, void* shared, bool owner) : path_(std::move(path)), fd_(fd), shared_(shared), owner_(owner) {}
  std::string path_;
  int fd_ = -1;
  void* shared_ = nullptr;
  bool owner_ = false;
};

}  // namespace pperf
