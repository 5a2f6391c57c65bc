#pragma once
// The runner: owns warmup, timing and stopping. It pulls a batch from the data source, hands
// it to the workload, and times both from outside; the workload never sees a clock.
#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "src/config/config.h"
#include "src/core/measurement.h"
#include "src/measure/device.h"
#include "src/measure/turns.h"
#include "src/stats/stopping.h"
#include "workloads/workload.h"

namespace pperf {

/// Monotonic milliseconds. Injected so tests can drive the runner with a fake clock.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual double now_ms() const = 0;
};
const Clock& steady_clock();

/// Where a measurement stands, after each step (for progress lines; the runner's timing is
/// unaffected beyond the callback's own cost).
struct Progress {
  bool warmup = false;
  int64_t steps = 0;                            // warmup steps, or measured steps so far
  const std::vector<double>* step_ms = nullptr;  // measured phase: the samples so far
};
using ProgressCallback = std::function<void(const Progress&)>;

/// Data-parallel ranks must run the same number of steps. After every step (warmup included,
/// outside the timed part) the runner proposes a code and gets the group's decision back:
/// 0 go on, 1 stop (rank 0's stop rule fired), 2 interrupted. Only rank 0's stop rules count.
struct StepAgreement {
  bool rank0 = true;
  std::function<int(int)> agree;
};

/// Runs `settings.warmup_steps` untimed steps, then timed steps until a stop rule fires, the
/// data source ends, or `stop_requested` becomes true (then the measurement says interrupted).
/// Each timed step = waiting for the batch + placing it on `device` + the training step +
/// waiting for the device to finish it; the wait for the batch is recorded apart.
/// Exceptions from the workload propagate to the caller, and so do the data source's before the
/// first measured step; after it, a failing data source ends the phase with what was measured
/// (`source_failed`).
Measurement measure(Workload& workload, DataSource& data, const MeasureSettings& settings,
                    const std::atomic<bool>& stop_requested, const Clock& clock = steady_clock(),
                    const ProgressCallback& on_progress = {}, const Device& device = cpu_device(),
                    const StepAgreement* agreement = nullptr);

/// Measuring in turns (TurnTaking): warmup (before the first round), then per round the
/// ordered timed steps, timed as measure() times them. Between its rounds the data source is
/// paused (DataSource::pause: a source that can hold its pipeline prepares nothing while the
/// others measure); after a switch the batches it holds beyond the pause's level (its head
/// start) are consumed un-timed, at least one step, or `untimed_steps_unknown` steps when the
/// source cannot tell. Ends at the scheduler's word, when the data source ends or fails (what
/// was measured is kept) or on `stop_requested`.
Measurement measure_in_turns(Workload& workload, DataSource& data, const MeasureSettings& settings,
                             int64_t untimed_steps_unknown, TurnTaking& turns, const std::atomic<bool>& stop_requested,
                             const Clock& clock = steady_clock(), const Device& device = cpu_device());

/// Where extra steps begin and end, for an observer that must see them line up with the
/// runner's clock (a profiler's step ranges). start() once before the first marked step; for
/// each step begin(index) right after its clock starts and end() right before its clock stops.
class StepMarks {
 public:
  virtual ~StepMarks() = default;
  virtual void start() = 0;
  virtual void begin(int64_t step_index) = 0;
  virtual void end() = 0;
};

/// Extra steps after measuring, never part of a Measurement: resumes the data source (turns
/// leave it paused), runs `unmarked` un-timed steps (the pipeline and caches back to steady
/// state), then `marked` steps timed as a measured step is, each inside `marks`, numbered from
/// `first_index`. Returns their step times, ms (fewer when the data source ends).
std::vector<double> marked_steps(Workload& workload, DataSource& data, const Device& device, int64_t unmarked,
                                 int64_t marked, int64_t first_index, StepMarks& marks, const Clock& clock = steady_clock());

}  // namespace pperf
