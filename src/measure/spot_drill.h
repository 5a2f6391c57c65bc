#pragma once
// Spot in the measure stage: the measured cost of a checkpoint, and the interruption drill.
// Torch-free header (the CLI includes it); the measure stage times, the workload only saves
// and loads its state (Workload::save_state / load_state).
#include <atomic>
#include <string>

#include "src/config/plan.h"
#include "src/core/result.h"

namespace pperf {

class Workload;

/// The checkpoint file of an item in `dir` (the config's spot.checkpoint_dir, else the
/// system's temporary directory): unique per process.
std::string checkpoint_path(const std::string& dir, const std::string& configuration);

/// Writes the workload's training state and the step it has reached to `path` atomically (a
/// reclaim mid-write leaves the previous checkpoint). Returns the file's size in bytes. Throws
/// std::runtime_error when the workload cannot checkpoint.
int64_t write_checkpoint(Workload& workload, const std::string& path, int64_t step);
/// Loads a checkpoint written by write_checkpoint for the same spec; returns its step.
int64_t read_checkpoint(Workload& workload, const std::string& path);

/// Saves and restores `repetitions` times; medians of each. The file is removed afterwards.
CheckpointCost measure_checkpoint(Workload& workload, const std::string& path, int64_t repetitions);

/// The drill's training process (`pperf spot-drill-worker`): trains `steps` steps of the item
/// on batches made on this thread, checkpointing every `every` steps; with `resume`, first
/// loads the checkpoint and continues from its step. Prints, on stdout, lines the parent
/// reads: "ready T", "restored STEP T", "step N T" (T: monotonic ms, the same clock system-wide).
/// It trains on the configuration's device (the first GPU for "cuda": the drill is one process),
/// synchronized before each step's line.
void drill_train(const PlanItem& item, const WorkloadRegistry& registry, const std::string& checkpoint, int64_t steps,
                 int64_t every, bool resume);

struct DrillOptions {
  std::string pperf_binary;
  int64_t every = 10;          // checkpoint every this many steps
  int64_t kill_at_step = 15;   // SIGKILL once this step is done (mid-interval)
  double timeout_s = 600;
};

/// Runs the drill for an item whose Result `r` is measured (mean step time) and priced with a
/// checkpoint cost: starts the training process, SIGKILLs it at `kill_at_step`, restarts it
/// from the last checkpoint and measures the time until it is back at that step. The
/// prediction: steps since the checkpoint x mean step time + the measured restore.
SpotDrill run_spot_drill(const Config& config, const PlanItem& item, const Result& r, const DrillOptions& options);

}  // namespace pperf
