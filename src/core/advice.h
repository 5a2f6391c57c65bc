#pragma once
// `pperf advise`'s record: configurations ranked by expected USD to train, On-Demand and Spot
// side by side. Computed by pricing/advise.h (numbers and verdicts), formatted by
// reports/formats.h (the words: labels, reasons, the verdict's sentence).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/core/kinds.h"
#include "src/core/result.h"

namespace pperf {

/// A row's run verdict against its run's baseline.
struct AdviceDecision {
  CostVerdict verdict = CostVerdict::undecided;
  double equivalence_pct = 0;   // the margin of "equivalent", %
  double improvement_pct = 0;   // the improvement's point estimate, %
  double confidence = 0.95;
  bool across_hosts = false;    // decided by `pperf decide` from runs measured apart, not by the run itself
};

/// A Spot row priced as a range: the expected USD at the Spot groups' cheapest and dearest
/// table prices (cost scales with the hourly price), and the zones where the table names them.
struct SpotPriceSpread {
  std::array<double, 2> usd{};           // expected USD to train at the range's ends
  std::array<double, 2> usd_per_hour{};  // the configuration's USD/h range
  struct Zones {
    std::string type, cheapest, dearest;
  };
  std::vector<Zones> zones;  // Spot groups whose table names zones
};

struct AdviceRow {
  int rank = 0;                 // 1 = cheapest within its workload
  std::string workload;         // "name/preset, batch N"
  std::string configuration;
  std::string file;             // the results file it came from
  std::string market;           // "on_demand" | "spot"
  std::vector<PricedGroup> instances;  // the configuration's groups (labelled by role in reports/)
  int64_t steps = 0;
  double usd = 0;               // expected USD to train
  double hours = 0;             // billed hours
  double wall_hours = 0;        // + unbilled restart overhead (Spot)
  std::optional<double> p95_usd;          // Spot: Monte Carlo p95
  double expected_interruptions = 0;      // the risk; 0 On-Demand
  std::optional<SpotPriceSpread> price_spread;  // Spot priced as a range
  /// The run's verdict against its baseline; absent for the baseline or without a decision.
  std::optional<AdviceDecision> decision;
};

struct Advice {
  std::string market;           // "on_demand" | "spot" | "both"
  std::vector<AdviceRow> rows;  // by workload, then rank (the first of a workload is its #1)
  std::vector<std::string> notes;  // results left out and why
};

}  // namespace pperf
