#pragma once
// The price stage of measure -> price -> report: fills each result's instance prices, cost and
// its comparison with the baseline of the same workload. Reads step-time estimates and the
// plan's samples per step, never samples or a timer; knows nothing of configs' files.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/core/result.h"
#include "src/stats/decision.h"
#include "pricing/price_table.h"

namespace pperf {

/// An instance group as a configuration asks for it.
struct InstanceGroup {
  std::string type;
  int64_t count = 1;
  std::string role = "dnn";  // "dnn" | "data"
  Market market = Market::on_demand;
  std::optional<double> usd_per_hour;  // negotiated price, overrides the table
};

/// A Spot configuration's settings (config `spot{...}`) with each group's interruption rate
/// resolved (from the config's override or the interruption table).
struct SpotSettings {
  std::optional<double> interruptions_per_month;  // per instance; overrides the table
  double restart_overhead_s = 0;                  // unbilled wait for capacity + provisioning
  std::optional<double> checkpoint_interval_s, checkpoint_save_s, checkpoint_restore_s;
  std::string checkpoint_dir;                     // where the measured checkpoint is written
  std::vector<double> group_interruptions_per_month;  // per instance group; 0 for On-Demand ones
};

struct ConfigurationPricing {
  std::vector<InstanceGroup> instances;
  std::optional<double> billable_seconds;  // a whole job's billed time (priced-only configs)
  std::optional<SpotSettings> spot;        // set when a group is Spot
};

struct PricingInputs {
  PriceTable table;
  double discount_pct = 0;
  std::optional<int64_t> steps_to_train;
  std::map<std::string, ConfigurationPricing> configurations;  // by configuration name
  uint64_t seed = 0;  // of the Spot model's Monte Carlo
  DecisionSettings decision;  // the config's: results measured one after the other
  /// The settings the run's turns were decided with (RunSession::decision_settings: the budget's
  /// horizon, the early looks): paired results are judged with them, as the run stopped on them.
  /// Empty: `decision`.
  std::optional<DecisionSettings> turns_decision;
};

/// Each configuration's hourly price over the baseline configuration's, at both ends of any
/// price range (what the decision to stop measuring needs of prices, and all it gets; the
/// final decision reads the same ends); empty without a baseline.
std::map<std::string, PriceRatio> price_ratios(const PricingInputs& inputs, const std::string& baseline);

/// The groups with their hourly prices (override, else the table's quote). Throws
/// std::invalid_argument for a type or market the table does not price (config loading checks
/// this first, so a loaded config never throws here).
std::vector<PricedGroup> price_groups(const std::vector<InstanceGroup>& groups, const PriceTable& table);

/// Prices every result that has a step estimate; results whose configuration is the baseline
/// anchor the comparison for their workload. With no priced baseline for a workload (filtered
/// out, or it failed), improvement stays null and the result says why in its events.
void price_results(std::vector<Result>& results, const PricingInputs& inputs);

/// The one stage between measuring and reporting, for `run` (every partial record set and the
/// finished one) and `cost`: each result's MFU against `host`'s peak (set_mfu,
/// src/core/mfu.h), then price_results. Call it once per set of results: it adds events, so a set
/// already through it is not passed again (run prices a copy of the results so far).
void price_and_rate(std::vector<Result>& results, const PricingInputs& inputs, const nlohmann::json& host);

}  // namespace pperf
