#pragma once
// `pperf decide`: configurations measured apart — each on its own hosts, at its own time — decided
// together. Reads the results of several runs, matches them, pools each configuration's hosts
// (src/stats/between_hosts.h), re-prices every configuration from one table and decides each
// against the baseline, unpaired. Pure: no timer, no files; the command reads the inputs and
// the table and writes the RunReport returned through the run writers.
//
// In stages, each a function with what it guarantees (decide.cpp): match (the inputs' results
// grouped, compared field by field), baseline, provenance (the record's inputs and table),
// pool (each configuration's hosts, re-priced), decide (each candidate against the baseline).
//
// Guarantees: a pair of results that would compare apples and oranges (kMatchFields) is refused
// with an InputError naming both sources and the field, unless the request accepts that field,
// and then every such difference is recorded in the report's `decide.accepted` (and so its notes);
// nothing is decided from a failed result, a priced-only one, or a run twice.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "src/core/result.h"
#include "src/stats/between_hosts.h"
#include "src/stats/decision.h"
#include "pricing/price_table.h"

namespace pperf {

/// One run decide reads: where it came from ("p4d.json", "history run 12") and its results.
struct DecideSource {
  std::string name;
  RunReport run;
};

/// The fields two results must share to be compared; each may be accepted by name (--accept).
/// preset, batch_size, samples_per_step, params, seed, dataset (data source and size),
/// model (parameter count), precision, version (pperf's major version), emulation (emulated or
/// native), discount (pricing.discount_pct).
const std::vector<std::string>& match_fields();

struct DecideRequest {
  std::vector<DecideSource> sources;
  std::optional<std::string> baseline;  // a configuration name; else the one the results mark
  std::set<std::string> accepted;       // match_fields() the user means to differ
  PriceTable table;                     // every configuration is priced from it
  std::string table_choice;             // how it was chosen ("--pricing", "the newest of the inputs'")
  DecisionSettings decision;
  /// The between-host spread measured by other hosts (the history), by spread_key, for
  /// configurations measured on one host.
  std::map<std::string, ExternalSpread> history_spread;
  double prior_cv = kPriorBetweenHostCv;
};

/// The instance type a configuration's between-host spread is looked up by: its first dnn
/// group's type.
std::string spread_instance_type(const Result& r);
/// What a between-host spread is kept by: the instance type and the workload (name, preset,
/// batch size) and emulation — machines of a type spread differently under different loads.
std::string spread_key(const Result& r);

/// The between-host spread of `like`'s spread_key from `runs` (the history's `pperf run`s): the
/// newest result per host (placement.host_id), external_spread over them. The runs `decided`
/// and every host they measured on are left out (a run is not its own history, nor a machine its
/// own spread). nullopt below kMinHistoryHosts hosts with an interval of their mean.
std::optional<ExternalSpread> spread_from_runs(const std::vector<RunReport>& runs, const Result& like,
                                               const std::vector<DecideSource>& decided = {});

/// What decide made: the report (command "decide", one result per configuration and workload,
/// its `decide` record: src/core/decide_record.h). Its sentences (the notes, each candidate's
/// decision.reason) are written from the record by reports/decide_text.h (decide_notes,
/// decide_reasons): a candidate's reason is empty until then.
struct DecideOutcome {
  RunReport report;
};
/// Throws InputError naming a source and JSON pointer (or a flag) for every refusal.
DecideOutcome decide_separate(const DecideRequest& request);

/// Seconds since the epoch of a results timestamp (YYYY-MM-DDTHH:MM:SSZ); nullopt otherwise.
std::optional<double> utc_seconds(const std::string& timestamp);

}  // namespace pperf
