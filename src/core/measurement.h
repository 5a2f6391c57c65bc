#pragma once
// What the runner hands on: every measured step, how long each waited for its batch, and why
// measuring stopped. Knows nothing of prices or of statistics.
#include <nlohmann/json.hpp>

#include "src/core/kinds.h"

#include <optional>
#include <string>
#include <vector>

namespace pperf {

/// When the steps were measured relative to the run's other configurations of the workload.
struct Turns {
  Schedule schedule = Schedule::sequential;
  /// Interleaved: timed steps per round, rounds measured, and the configurations that took
  /// turns (this one included, in the first round's order; round r takes
  /// src/stats/turn_order.h's turn_order(k, r): A B / B A for two, a Williams design for more).
  int64_t round_steps = 0, rounds = 0;
  std::vector<std::string> configurations;
  /// Un-timed steps after switches (warmup excluded): the most after any one switch, in all,
  /// and their wall time (s); the last two unset in files from before they were recorded.
  int64_t most_untimed_steps = 0;
  std::optional<int64_t> untimed_steps;
  std::optional<double> untimed_s;
  /// Wall time of the workload's turns (s), from its first round to its last: the same for
  /// every configuration that took them (unset in files from before it was recorded). The sum
  /// of their elapsed_s over it is the share of the turns spent on measured steps.
  std::optional<double> wall_s;
};

/// Why measuring stopped: the code programs act on, and the sentence people read
/// ("max_steps (200)", "data source failed after 12 measured steps: connection reset").
struct StopCause {
  StopReason code = StopReason::other;
  std::string text;
};

struct Measurement {
  std::vector<double> step_ms;       // measured steps only (warmup excluded): wait + compute
  std::vector<double> data_wait_ms;  // of each measured step, the time spent waiting for its batch
  int64_t warmup_steps = 0;
  /// Wall time of the warmup steps (s): what compilation or tracing costs before the measured
  /// phase (billed, but not a step time). Unset in files from before it was recorded.
  std::optional<double> warmup_s;
  double elapsed_s = 0;              // wall time of the measured phase
  StopCause stop;
  double first_loss = 0, last_loss = 0;  // sanity: the model is really training
  /// How it was obtained: "process" (a child process of its own) or "in_process".
  std::string executor = "in_process";
  Turns turns;

  bool interrupted() const { return stop.code == StopReason::interrupted; }
  /// The data source failed after some steps were measured: the result is partial.
  bool source_failed() const { return stop.code == StopReason::data_source_failed; }
  /// Interleaved: the mean step time of each whole round (ms), in order; empty when sequential.
  std::vector<double> round_means_ms() const;
  /// Fraction of the measured time spent waiting for input: near 1 = input-bound.
  double data_wait_fraction() const;
  /// samples_per_step x steps / measured time (the bill's estimator: total time, not median).
  double samples_per_s(int64_t samples_per_step) const;
};

/// The mean of each whole round of `round_steps` consecutive steps, in order (a last, partial
/// round is left out); empty when round_steps <= 0.
std::vector<double> round_means(const std::vector<double>& step_ms, int64_t round_steps);

class JsonView;
/// A result's `measurement` object (docs/results.md) and back. The step times themselves are
/// `step_time_ms.samples` and the stop code the result's `stop_reason` (the Result's JSON writes
/// and reads them): read_measurement leaves step_ms empty and the code interrupted or other.
nlohmann::json to_json(const Measurement& m);
Measurement read_measurement(const JsonView& v);

}  // namespace pperf
