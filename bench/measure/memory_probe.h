#pragma once
// Before anything runs: will each item's training steps fit in the memory it may use?
// Measured, not guessed: two training steps at two smaller batches, each in a fresh process
// (`pperf probe-memory`), so each peak is its own and not a high-water mark an earlier probe
// left; the growth between them carried linearly to the item's batch (activations grow with
// the batch; parameters, gradients and optimizer state do not). Torch-free header.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bench/config/plan.h"
#include "bench/core/workload_registry.h"

namespace pperf {

struct MemoryEstimate {
  int64_t batch_size = 0;
  std::vector<std::pair<int64_t, int64_t>> probes;  // (batch, peak resident bytes), each in a fresh process
  int64_t predicted_peak_bytes = 0;
  int64_t limit_bytes = 0;  // what the item may use (0: unbounded)
  std::string not_probed;   // why there is no prediction (a GPU item: its batch lives in device memory)
  std::string probe_over_limit;  // a probe at a smaller batch already went over the limit: why
  bool cached = false;      // every probe's figure came from the cache (this binary, this host, earlier)
  bool fits() const {
    if (!probe_over_limit.empty()) return false;
    return !not_probed.empty() || limit_bytes == 0 || predicted_peak_bytes <= limit_bytes;
  }
  /// "needs about 3.1 GiB at batch 128 (1.0 GiB at batch 16, 1.6 GiB at batch 32, each in a
  /// fresh process)".
  std::string describe() const;
};

/// The batches probed for an item of batch `batch_size`: the batch itself up to 8, else an
/// eighth and a quarter of it (at least 4 apart).
std::vector<int64_t> probe_batches(int64_t batch_size);

/// Peak resident bytes of two training steps of `spec` at `batch` in this process (a fresh
/// one: `pperf probe-memory`). Throws what the workload throws.
int64_t probe_peak_rss_bytes(const WorkloadDescriptor& descriptor, WorkloadSpec spec, int64_t batch);

/// The item's estimate, its probes run by `pperf_binary probe-memory` under the item's memory
/// bound, or their figures read from the cache (cache_dir()/memory_probes.json: the same
/// binary, file time included, on the same host, for the same workload, batch and threads). A probe that fails otherwise than by memory leaves the item not probed, saying how
/// (the item itself then fails when it runs, with its own reason).
MemoryEstimate estimate_item_memory(const Config& config, const PlanItem& item, const std::string& pperf_binary,
                                    int64_t limit_bytes);

/// Every item's estimate, in plan order; items of one workload with the same threads are probed once.
std::vector<MemoryEstimate> estimate_plan_memory(const Config& config, const Plan& plan, const std::string& pperf_binary,
                                                 int64_t limit_bytes);

}  // namespace pperf
