#pragma once
// `pperf advise`'s record: configurations ranked by expected USD to train, On-Demand and Spot
// side by side. Computed by pricing/advise.h, formatted by reports/formats.h.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pperf {

struct AdviceRow {
  int rank = 0;                 // 1 = cheapest within its workload
  std::string workload;         // "name/preset, batch N"
  std::string configuration;
  std::string file;             // the results file it came from
  std::string market;           // "on_demand" | "spot"
  std::string instances;        // e.g. "4x g5.2xlarge"
  int64_t steps = 0;
  double usd = 0;               // expected USD to train
  double hours = 0;             // billed hours
  double wall_hours = 0;        // + unbilled restart overhead (Spot)
  std::optional<double> p95_usd;          // Spot: Monte Carlo p95
  double expected_interruptions = 0;      // the risk; 0 On-Demand
  std::string price_spread;     // Spot priced as a range: expected USD at its ends, zones named ("" otherwise)
  /// The run's verdict against its baseline ("cheaper per step against its run's baseline
  /// (improvement +38.2 %, 95 % confidence)"; "" for the baseline or without a decision).
  std::string decision;
  std::string reason;           // why this rank, one line (it starts with the decision)
};

struct Advice {
  std::string market;           // "on_demand" | "spot" | "both"
  std::vector<AdviceRow> rows;  // by workload, then rank
  std::vector<std::string> notes;  // results left out and why
};

}  // namespace pperf
