#pragma once
// The memory bound of one item's measuring processes (measure.max_memory_gib / --max-memory):
// a memory cgroup the kernel enforces where pperf can make one, else a watchdog that polls the
// processes' resident memory every 100 ms and kills them over the limit.
// Guarantees: processes started with prepare() (and all they start) are bound; once they
// ended, over_limit() says whether the bound ended them, failure_reason() in one sentence;
// nothing they started is left running once the bound is destroyed, and nothing else on the
// host is touched. Torch-free.
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "src/core/result.h"
#include "src/env/memory_cgroup.h"
#include "src/core/process.h"

namespace pperf {

class ItemMemoryBound {
 public:
  /// limit_bytes 0: unbounded (figures only).
  explicit ItemMemoryBound(int64_t limit_bytes);
  ItemMemoryBound(const ItemMemoryBound&) = delete;
  ItemMemoryBound& operator=(const ItemMemoryBound&) = delete;
  ~ItemMemoryBound();

  /// Binds a process about to be started: it joins the cgroup, and it can say which step it is on.
  void prepare(SpawnOptions& spawn) const;
  /// A started process; without a cgroup the watchdog polls it (and its descendants).
  void watch(const ChildProcess& child);
  /// After the processes ended: did the bound end them?
  bool over_limit() const;
  /// "out of memory: over the 3.0 GiB limit at step 4 (peak 3.0 GiB)".
  std::string failure_reason() const;
  /// The bound and its own peak, into `r.memory` (kept: what the measuring process recorded).
  void record(Result& r) const;

 private:
  int64_t limit_bytes_;
  std::string kind_ = "none";
  std::optional<MemoryCgroup> cgroup_;
  std::optional<StepBeacon> beacon_;
  // The polled fallback.
  std::mutex mutex_;
  std::vector<int> watched_;
  std::atomic<bool> killed_{false}, stopping_{false};
  std::atomic<int64_t> polled_peak_{0};
  std::thread watchdog_;
};

/// The default bound: `share` of the memory available when the run starts (MemAvailable).
int64_t default_memory_limit_bytes(double share = 0.8);

}  // namespace pperf
