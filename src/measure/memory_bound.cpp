#include "src/measure/memory_bound.h"

#include <signal.h>

#include <chrono>

#include <fmt/format.h>

#include "src/env/host_info.h"

namespace pperf {

namespace {
constexpr double kGiB = 1024.0 * 1024 * 1024;
}

ItemMemoryBound::ItemMemoryBound(int64_t limit_bytes) : limit_bytes_(limit_bytes) {
  if (limit_bytes_ <= 0) return;
  try {
    beacon_.emplace(StepBeacon::create());
  } catch (const std::exception&) {
    // Without it the failure says less (no step), nothing else changes.
  }
  std::string why_not;
  if (std::optional<MemoryCgroup> group = MemoryCgroup::create(limit_bytes_, why_not)) {
    cgroup_.emplace(std::move(*group));
    kind_ = cgroup_->kind();
    return;
  }
  kind_ = "polled";
  watchdog_ = std::thread([this] {
    while (!stopping_) {
      int64_t total = 0;
      std::vector<int> pids;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        pids = watched_;
      }
      for (int pid : pids) total += tree_rss_bytes(pid);
      if (total > polled_peak_) polled_peak_ = total;
      if (total > limit_bytes_ && !killed_) {
        killed_ = true;
        // The measuring processes die with SIGKILL; their data workers die with them (death signal).
        for (int pid : pids) ::kill(pid, SIGKILL);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
}

ItemMemoryBound::~ItemMemoryBound() {
  stopping_ = true;
  if (watchdog_.joinable()) watchdog_.join();
}

void ItemMemoryBound::prepare(SpawnOptions& spawn) const {
  if (cgroup_) spawn.join_cgroup = cgroup_->procs_path();
  if (beacon_) spawn.set_env.emplace_back(StepBeacon::kEnvironment, beacon_->path());
}

void ItemMemoryBound::watch(const ChildProcess& child) {
  if (!watchdog_.joinable()) return;
  std::lock_guard<std::mutex> lock(mutex_);
  watched_.push_back(child.pid());
}

bool ItemMemoryBound::over_limit() const { return cgroup_ ? cgroup_->oom_kills() > 0 : killed_.load(); }

std::string ItemMemoryBound::failure_reason() const {
  const std::string step = beacon_ ? beacon_->describe() : "";
  const std::optional<int64_t> peak = cgroup_ ? cgroup_->peak_bytes() : std::optional<int64_t>(polled_peak_.load());
  return fmt::format("out of memory: over the {:.1f} GiB limit {}{}", limit_bytes_ / kGiB,
                     step.empty() ? "before the first step" : "at " + step,
                     peak ? fmt::format(" (peak {:.2f} GiB)", *peak / kGiB) : "");
}

void ItemMemoryBound::record(Result& r) const {
  MemoryReport& m = r.memory ? *r.memory : r.memory.emplace();
  m.bound = kind_;
  if (limit_bytes_ > 0) m.limit_bytes = limit_bytes_;
  if (cgroup_) m.group_peak_bytes = cgroup_->peak_bytes();
}

int64_t default_memory_limit_bytes(double share) {
  return static_cast<int64_t>(static_cast<double>(available_memory_bytes()) * share);
}

}  // namespace pperf
