#pragma once
// Before anything runs: will each item's training steps fit in the memory it may use?
// Measured, not guessed: two training steps at two smaller batches, each in a fresh process
// (`pperf probe-memory`), so each peak is its own and not a high-water mark an earlier probe
// left; the growth between them carried linearly to the item's batch (activations grow with
// the batch; parameters, gradients and optimizer state do not). An item on a GPU is probed on
// its GPU: the host's resident memory and the device memory torch's caching allocator reserved,
// the latter against the device's capacity. Torch-free header.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/config/plan.h"
#include "src/core/workload_registry.h"

namespace pperf {

struct MemoryEstimate {
  int64_t batch_size = 0;
  std::vector<std::pair<int64_t, int64_t>> probes;  // (batch, peak resident bytes), each in a fresh process
  int64_t predicted_peak_bytes = 0;
  int64_t limit_bytes = 0;  // what the item may use (0: unbounded)
  std::string not_probed;   // why there is no prediction (ranks, a step in a process of its own)
  std::string probe_over_limit;  // a probe at a smaller batch already went over the limit: why
  bool cached = false;      // every probe's figure came from the cache (this binary, this host, earlier)
  /// On a GPU: the device ("cuda:0"), the caching allocator's reserved peak per probe (batch,
  /// bytes), the prediction at the item's batch, and the device's whole memory.
  std::string device;
  std::vector<std::pair<int64_t, int64_t>> device_probes;
  int64_t predicted_device_bytes = 0;
  int64_t device_capacity_bytes = 0;
  bool fits_device() const { return device.empty() || device_capacity_bytes == 0 || predicted_device_bytes <= device_capacity_bytes; }
  bool fits() const {
    if (!probe_over_limit.empty()) return false;
    if (!not_probed.empty()) return true;
    return (limit_bytes == 0 || predicted_peak_bytes <= limit_bytes) && fits_device();
  }
  /// "needs about 3.1 GiB at batch 128 (1.0 GiB at batch 16, 1.6 GiB at batch 32, each in a
  /// fresh process)", and on a GPU "; on cuda:0 about 61.2 GiB of its 79.2 GiB (...)".
  std::string describe() const;
};

/// What two training steps at one batch held, in a fresh process: its peak resident bytes and,
/// on a GPU, the device memory torch's caching allocator reserved at its peak and the device's
/// capacity (-1 on the CPU).
struct ProbeFigures {
  int64_t peak_rss_bytes = 0;
  int64_t device_reserved_bytes = -1;
  int64_t device_capacity_bytes = -1;
};

/// The probe's one line on stdout ("peak_rss_bytes N device_reserved_bytes R
/// device_capacity_bytes C"), and its reading (nullopt for any other line).
std::string probe_line(const ProbeFigures& figures);
std::optional<ProbeFigures> parse_probe_line(const std::string& line);

/// The batches probed for an item of batch `batch_size`: the batch itself up to 8, else an
/// eighth and a quarter of it (at least 4 apart).
std::vector<int64_t> probe_batches(int64_t batch_size);

/// Two training steps of `spec` at `batch` on `spec.device` in this process (a fresh one:
/// `pperf probe-memory`), batches placed as the runner places them. Throws what the workload
/// or the device throws.
ProbeFigures probe_item_memory(const WorkloadDescriptor& descriptor, WorkloadSpec spec, int64_t batch);

/// The item's estimate, its probes run by `pperf_binary probe-memory` under the item's memory
/// bound, or their figures read from the cache (cache_dir()/memory_probes.json: the same
/// binary, file time included, on the same host, for the same workload, batch and threads). A probe that fails otherwise than by memory leaves the item not probed, saying how
/// (the item itself then fails when it runs, with its own reason).
MemoryEstimate estimate_item_memory(const Config& config, const PlanItem& item, const std::string& pperf_binary,
                                    int64_t limit_bytes);

/// Every item's estimate, in plan order; items of one workload with the same threads are probed
/// once. `probing` is told of each item just before its probe starts.
std::vector<MemoryEstimate> estimate_plan_memory(const Config& config, const Plan& plan, const std::string& pperf_binary,
                                                 int64_t limit_bytes,
                                                 const std::function<void(const PlanItem&)>& probing = {});

}  // namespace pperf
