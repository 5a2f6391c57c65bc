#pragma once
// Measuring a workload's configurations in turns. Configurations measured one after the other
// on a host whose speed drifts differ by the drift (an audit measured false "cheaper" verdicts
// between identical configurations in up to 81 % of runs); measured in alternating rounds,
// each round of one configuration sits next to a round of the other, and the drift cancels.
//
// Each configuration keeps its own measuring process (`pperf measure-item --turns`: its CPU
// set, thread pools, data workers and allocator) for the whole run; only one measures at a
// time. Per round each takes kRoundSteps timed steps; between its rounds its data pipeline is
// held (runner.h: measure_in_turns), so a switch costs one un-timed step where the source can
// tell how far it got ahead while paused; the order follows a balanced design (turn_order: A B, B A for
// two; a Williams design for three or more), so neither a trend inside a round nor what ran
// just before favours anyone. After every round the scheduler looks: with a baseline, it stops once every
// configuration is decided against it (src/stats/decision.h: valid however often it looks);
// without one, once every configuration's intervals meet measure.target_rel_ci (either only once
// each has measure.min_steps); in any case at the first configuration to reach
// measure.max_steps or measure.max_seconds of its own steps.
// Torch-free: it talks to its measuring processes over pipes.
#include <atomic>
#include <functional>
#include <vector>

#include "src/measure/executor.h"
#include "src/stats/turn_order.h"

namespace pperf {

/// Timed steps per configuration per round: the batch of the mean's batch-means interval, so a
/// round is a batch.
constexpr int64_t kRoundSteps = 10;

/// One Result per item, in the order given; guarantees of measure_item_in_child (never throws
/// for an item; stop_requested ends every item after its current step; no child outlives the
/// call). Items must be of one workload, none data-parallel. `observer` hears of each item's
/// set-up as its process starts, of its start once every process is set up and the first round
/// begins, and of the turns after each round and about once a second in between.
std::vector<Result> measure_interleaved(const Config& config, const std::vector<const PlanItem*>& items,
                                        const ExecutorOptions& options, const std::atomic<bool>& stop_requested,
                                        MeasureObserver& observer);

/// The protocol a measuring process speaks on its stdin/stdout (measure-item --turns).
TurnTaking turns_over_stdio();

}  // namespace pperf
