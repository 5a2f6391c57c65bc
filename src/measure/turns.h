#pragma once
// How a measuring process takes turns with the run's other configurations of a workload
// (src/measure/interleave.h): the runner's side of the conversation with the scheduler.
// Torch-free, so the executor's header and the CLI can name it.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "src/core/measurement.h"
#include "src/core/result.h"

namespace pperf {

/// The runner tells `ready` once it can measure, then asks `next` for each round: the timed
/// steps to run, or nullopt for the end (with its cause in `end`). After each round it
/// hands `done` the round's step times (ms).
struct TurnTaking {
  std::function<void()> ready;
  std::function<std::optional<int64_t>(StopCause& end)> next;
  std::function<void(const std::vector<double>& round_ms)> done;
};

/// Where a workload's configurations taking turns stand, for the parent's progress line: after
/// every round, and about once a second while a round runs.
struct TurnsSnapshot {
  struct Side {
    std::string configuration;
    bool baseline = false;
    bool active = true;     // still taking turns
    int64_t steps = 0;      // timed steps so far
    double measured_s = 0;  // their sum
    /// Against the baseline (candidates with a price ratio, once the decision looked).
    std::optional<Decision> decision;
  };
  std::string workload;
  size_t rounds = 0;       // rounds every active configuration completed
  int64_t round_steps = 0;  // timed steps per configuration per round
  double elapsed_s = 0;    // wall time since the first round began
  int64_t max_steps = 0;   // the budget: the first configuration at either ends the turns
  double max_seconds = 0;
  std::vector<Side> sides;
};

}  // namespace pperf
