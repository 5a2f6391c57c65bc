#pragma once
// Before a long run: will one training step at the configured batch fit in this host's memory?
// Measured, not guessed: a step at batch 2 and at batch 4 (a model and pipeline of their own),
// the growth of peak resident memory between them extrapolated linearly to the batch.
#include <cstdint>
#include <string>

#include "bench/core/workload_registry.h"

namespace pperf {

struct MemoryEstimate {
  int64_t batch_size = 0;
  int64_t bytes_per_sample = 0;  // peak growth per sample between the probe batches
  int64_t predicted_peak_bytes = 0;
  int64_t available_bytes = 0;   // MemAvailable before the probe
  bool fits() const { return available_bytes == 0 || predicted_peak_bytes <= available_bytes * 9 / 10; }
  /// "needs about 19.2 GiB at batch 4096 (4.6 MiB per sample, measured at batches 2 and 4);
  /// 21.3 GiB available".
  std::string describe() const;
};

/// Runs the probe steps for `spec` (throws what the workload throws). Batches of 4 or fewer are
/// not probed: nothing to extrapolate (fits() is true).
MemoryEstimate estimate_step_memory(const WorkloadDescriptor& descriptor, const WorkloadSpec& spec);

}  // namespace pperf
