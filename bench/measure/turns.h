#pragma once
// How a measuring process takes turns with the run's other configurations of a workload
// (bench/measure/interleave.h): the runner's side of the conversation with the scheduler.
// Torch-free, so the executor's header and the CLI can name it.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bench/core/measurement.h"

namespace pperf {

/// The runner tells `ready` once it can measure, then asks `next` for each round: the timed
/// steps to run, or nullopt for the end (with its cause in `end`). After each round it
/// hands `done` the round's step times (ms).
struct TurnTaking {
  std::function<void()> ready;
  std::function<std::optional<int64_t>(StopCause& end)> next;
  std::function<void(const std::vector<double>& round_ms)> done;
};

}  // namespace pperf
