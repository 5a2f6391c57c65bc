#pragma once
// The decision across machines as the results file records it (docs/results.md "decide"):
// typed, with its JSON keys listed once beside each record (json_fields.h), as the sweep's
// (sweep_record.h). `pperf decide` (src/decide/decide.h) fills it; the writers in reports/ read
// its fields and make its sentences (reports/decide_text.h), the notes among them.
#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/core/json_fields.h"
#include "src/core/json_view.h"
#include "src/core/result.h"

namespace pperf {

/// The table an input run priced with, as its own file recorded it.
struct DecideInputPricing {
  std::string table, retrieved;
  std::optional<std::string> published, sha256;  // null in files that record none
};
inline constexpr auto kDecideInputPricingFields =
    std::make_tuple(json_field("table", &DecideInputPricing::table), json_field("retrieved", &DecideInputPricing::retrieved),
                    json_field("published", &DecideInputPricing::published), json_field("sha256", &DecideInputPricing::sha256));

/// An input run's own machine (the report's `host` is where it was decided): each fact only
/// where that run's host recorded it.
struct DecideMachine {
  std::optional<std::string> hostname, cpu_model;
  std::optional<int64_t> logical_cpus;
  bool empty() const { return !hostname && !cpu_model && !logical_cpus; }
};
inline constexpr auto kDecideMachineFields = std::make_tuple(
    json_field_added("hostname", &DecideMachine::hostname), json_field_added("cpu_model", &DecideMachine::cpu_model),
    json_field_added("logical_cpus", &DecideMachine::logical_cpus));

/// One results file (or history run) decide read: where, when and with which table it was measured.
struct DecideInput {
  std::string source;                       // "p4d-1.json", "history run 12"
  std::vector<std::string> configurations;  // its results' configurations, in its order
  std::string started_at;
  std::optional<std::string> finished_at;
  std::optional<double> after_first_s;  // from the earliest input's start; null when a start is unreadable
  std::string host_id;                  // what replicates are told apart by
  std::optional<Placement> placement;   // null in files from before placements
  DecideMachine machine;
  std::string tool_version, config_sha256;
  DecideInputPricing pricing;
  nlohmann::json unknown_fields = nlohmann::json::object();
};
inline constexpr auto kDecideInputFields = std::make_tuple(
    json_field("source", &DecideInput::source), json_field("configurations", &DecideInput::configurations),
    json_field("started_at", &DecideInput::started_at), json_field("finished_at", &DecideInput::finished_at),
    json_field("after_first_s", &DecideInput::after_first_s), json_field("host_id", &DecideInput::host_id),
    json_field("tool_version", &DecideInput::tool_version), json_field("config_sha256", &DecideInput::config_sha256));

/// The one table every configuration was re-priced with, and how it was chosen.
struct DecidePricing {
  std::string table, sha256, retrieved;
  std::optional<std::string> published;
  std::string chosen;  // "--pricing", or "the newest of the inputs' tables, X's"
};
inline constexpr auto kDecidePricingFields = std::make_tuple(
    json_field("table", &DecidePricing::table), json_field("sha256", &DecidePricing::sha256),
    json_field("retrieved", &DecidePricing::retrieved), json_field("published", &DecidePricing::published),
    json_field("chosen", &DecidePricing::chosen));

/// A difference --accept let through: the field, the two sources and their values (the
/// workload's first result's, then the other's), and where each lives in its file.
struct AcceptedDifference {
  std::string field;
  std::vector<std::string> sources, values;
  std::optional<std::vector<std::string>> at;  // JSON pointers, absent in files from before them
};
inline constexpr auto kAcceptedDifferenceFields = std::make_tuple(
    json_field("field", &AcceptedDifference::field), json_field("sources", &AcceptedDifference::sources),
    json_field("values", &AcceptedDifference::values), json_field_added("at", &AcceptedDifference::at));

/// A configuration without an interval of its mean: the first of its hosts that has none, and
/// its steps (fewer than an interval needs, or not varying).
struct NoInterval {
  std::string workload, configuration, source, host_id;
  int64_t steps = 0;
};
inline constexpr auto kNoIntervalFields = std::make_tuple(
    json_field("workload", &NoInterval::workload), json_field("configuration", &NoInterval::configuration),
    json_field("source", &NoInterval::source), json_field("host_id", &NoInterval::host_id),
    json_field("steps", &NoInterval::steps));

/// What a candidate's reason says beyond the results' fields and the rows above: reports/
/// (decide_text.h) writes the reason from them, the rule's own sentence last. Not written to the
/// file (the reason made of them is: decision.reason), so empty in a record read back.
struct DecideReasonFacts {
  std::string workload, configuration;
  /// With the prior: the improvement's interval from the hosts' own intervals alone, %.
  std::optional<std::array<double, 2>> own_improvement_pct_bounds;
  /// Undecided, where the hosts' own step times carry more of the interval's variance than the
  /// spread between hosts: their share of it, %.
  std::optional<double> own_variance_pct;
  std::string rule;  // the decision rule's own sentence (decide_fixed's reason)
};

/// The `decide` object. Its notes (what was accepted, which inputs were re-priced, workloads
/// without their baseline, how each configuration's hosts were pooled) are made of these fields
/// and the results' `hosts` (reports/decide_text.h), so every format shows them.
struct DecideRecord {
  std::string schedule = "separate";
  std::vector<DecideInput> inputs;
  DecidePricing pricing;
  std::vector<AcceptedDifference> accepted;
  double prior_cv = 0;            // the stated between-host prior
  std::optional<double> apart_s;  // from the first input's start to the last one's end
  std::vector<NoInterval> no_interval;  // written only when some configuration has none
  std::vector<DecideReasonFacts> reasons;  // not written (see DecideReasonFacts)
  nlohmann::json unknown_fields = nlohmann::json::object();

  /// The no-interval row of a configuration, if any.
  const NoInterval* no_interval_of(const std::string& workload, const std::string& configuration) const;
};
inline constexpr auto kDecideRecordFields =
    std::make_tuple(json_field("schedule", &DecideRecord::schedule), json_field("prior_cv", &DecideRecord::prior_cv),
                    json_field("apart_s", &DecideRecord::apart_s));

nlohmann::json to_json(const DecideRecord& decide);
/// Reads a results file's `decide`; a field missing or of the wrong type fails naming its JSON
/// pointer. Members it does not know are kept and written back.
DecideRecord read_decide(const JsonView& v);

}  // namespace pperf
