#pragma once
// The runner: owns warmup, timing and stopping. It pulls a batch from the data source, hands
// it to the workload, and times both from outside; the workload never sees a clock.
#include <atomic>

#include "bench/core/measurement.h"
#include "bench/stats/stopping.h"
#include "workloads/workload.h"

namespace pperf {

/// Monotonic milliseconds. Injected so tests can drive the runner with a fake clock.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual double now_ms() const = 0;
};
const Clock& steady_clock();

/// Runs `settings.warmup_steps` untimed steps, then timed steps until a stop rule fires, the
/// data source ends, or `stop_requested` becomes true (then the measurement says interrupted).
/// Each timed step = waiting for the batch + the training step; the wait is recorded apart.
/// Exceptions from the workload or the data source propagate to the caller.
Measurement measure(Workload& workload, DataSource& data, const MeasureSettings& settings,
                    const std::atomic<bool>& stop_requested, const Clock& clock = steady_clock());

}  // namespace pperf
