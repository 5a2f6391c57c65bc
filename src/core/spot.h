#pragma once
// Spot records of a Result: the measured cost of a checkpoint, and the expected cost to train
// on Spot (pricing/spot_model.h computes it). Plain data like the rest of result.h; their JSON
// lives here too so the results writer and reader each add one line for them.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace pperf {

class JsonView;

/// Saving and restoring the workload's full training state (model + optimizer), measured by
/// the measure stage for a configuration with a Spot group.
struct CheckpointCost {
  int64_t bytes = 0;
  double save_ms = 0;     // median over the repetitions
  double restore_ms = 0;  // median over the repetitions
  int64_t repetitions = 0;
  std::string path;       // the file written (removed afterwards)
};

/// Expected cost to train on Spot. Hours are hours of the whole group; "billed" hours include
/// checkpoint writes, rework and restores; wall hours add the unbilled restart overhead.
struct SpotEstimate {
  double interruptions_per_hour = 0;         // of the whole group (sum over its Spot instances)
  std::optional<double> mtbf_h;              // 1 / interruptions_per_hour; null without interruptions
  double checkpoint_interval_s = 0;          // useful work between two checkpoints
  std::string interval_basis;                // "young_daly" | "config" | "no_interruptions"
  double checkpoint_save_s = 0, checkpoint_restore_s = 0, restart_overhead_s = 0;
  std::string checkpoint_basis;              // "measured" | "config" | "measured+config", "+drill"
                                             // when R includes a drill's measured process restart
  double work_hours = 0;                     // steps x mean step time (billed, as to_train)
  double expected_interruptions = 0;
  double expected_hours = 0;                 // billed, first-order analytic
  double expected_wall_hours = 0;
  double expected_usd = 0;
  double mc_mean_hours = 0;                  // Monte Carlo over Poisson interruptions
  double p50_hours = 0, p95_hours = 0;
  double mc_mean_usd = 0, p50_usd = 0, p95_usd = 0;
  int64_t mc_trials = 0;
  uint64_t mc_seed = 0;
  double on_demand_usd = 0;                  // the same groups On-Demand, no checkpoints
  double savings_pct = 0;                    // (1 - expected_usd / on_demand_usd) x 100
  std::optional<double> break_even_interruptions_per_month;  // per instance; null: never cheaper
  bool break_even_is_lower_bound = false;  // Spot still cheaper where the first-order model ends
};

/// What `pperf run --spot-drill` measured: a SIGKILL mid-run and a restart from the last checkpoint.
struct SpotDrill {
  int64_t killed_at_step = 0, resumed_from_step = 0;
  double measured_lost_s = 0;   // rework + restore + restart, measured
  double predicted_lost_s = 0;  // the model's: steps since the checkpoint x step time + restore
  double restart_s = 0, restore_s = 0, rework_s = 0;
};

nlohmann::json to_json(const CheckpointCost& c);
nlohmann::json to_json(const SpotEstimate& s);
nlohmann::json to_json(const SpotDrill& d);
CheckpointCost read_checkpoint_cost(const JsonView& v);
SpotEstimate read_spot_estimate(const JsonView& v);
SpotDrill read_spot_drill(const JsonView& v);

}  // namespace pperf
