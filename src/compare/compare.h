#pragma once
// Comparing two runs (a baseline and a candidate): match results by (workload, preset,
// batch_size, configuration), test each pair on its step-time samples, control the false
// discovery rate across pairs, split the cost change into its time and price parts, and give
// each pair a verdict (docs/compare.md); pool a baseline from several runs. Pure functions over
// src/core's record: the analysis only. The comparison's writers (console, Markdown, JUnit XML,
// JSON, HTML) are in reports/formats.h, registered in reports/writer.h.
#include <array>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "src/core/result.h"

namespace pperf {

struct CompareOptions {
  double alpha = 0.05;                ///< false discovery rate across the pairs (BH q <= alpha)
  double max_slowdown_pct = 5;        ///< a significant change regresses when its 95 % interval lies above this (improves: below minus it)
  double max_cost_increase_pct = 5;   ///< the same for the time part of the USD-per-step change
};

enum class Verdict { regressed, improved, unchanged, undecided, added, missing, failed };
/// "regressed", "improved", "unchanged", "undecided", "new", "missing", "failed".
std::string to_string(Verdict verdict);
/// True for the verdicts that make `pperf compare` exit 1.
bool is_alarm(Verdict verdict);

/// One side of a compared run: the record plus where it came from.
struct CompareSide {
  RunReport report;
  /// Names the source in errors and outputs: a results file, or a history database.
  std::string file;
  /// The runs behind this side (1 for a file; the pooled runs for a history baseline).
  struct Run {
    int64_t id = 0;  // history run id; 0 for a file
    std::string started_at, git_sha, config_sha256;
  };
  std::vector<Run> runs;
  /// A free sentence shown under the heading, e.g. "last 5 of 9 runs in results/history.sqlite".
  std::string description;
  /// For a pooled baseline: per result (parallel to report.results), the mean step time of
  /// each run pooled into it, oldest first: the clusters run_to_run_change tests against.
  /// Empty for a single file.
  std::vector<std::vector<double>> run_means;
};

/// Several measured results of one configuration pooled: their step and data-wait samples
/// concatenated in the order given, their measured seconds summed, the spread of the pooled
/// steps. What compare (a baseline's runs, pool_runs) and decide (a configuration's hosts)
/// pool alike. Every result must have its measurement.
struct PooledSamples {
  std::vector<double> step_ms, data_wait_ms;
  double elapsed_s = 0;
  StepTimeSpread spread;
};
PooledSamples pool_samples(const std::vector<const Result*>& results);

/// A baseline pooled from several runs (oldest first) of one config: per pair, the samples of
/// every run whose result is ok and `keep(result, run index)` says so, concatenated; its figures
/// recomputed from the pool (for display: the test uses each run's mean, run_means); priced at
/// the newest run's USD/h through the cost model (reprice). The header (host, config,
/// pricing) is the newest run's. Pairs without samples pool the median of the runs' medians.
CompareSide pool_runs(const std::vector<CompareSide>& runs,
                      const std::function<bool(const Result&, size_t run_index)>& keep = nullptr);

/// The figures of one side of a pair.
struct PairFigures {
  ResultStatus status = ResultStatus::ok;
  std::string reason;
  bool measured = false;
  size_t n = 0;  // samples
  std::optional<double> median_ms, mean_ms, usd_per_hour, usd_per_step;
};

struct PairComparison {
  std::string workload, preset, configuration;
  int64_t batch_size = 0;
  Verdict verdict = Verdict::unchanged;
  /// "samples" (one run a side: welch_mean_change), "runs" (a pooled baseline: the candidate
  /// against each baseline run's mean, run_to_run_change), "threshold" (a side has no samples:
  /// means and thresholds alone), or "" when nothing could be compared (new, missing, failed).
  std::string compared_by;
  std::vector<std::string> reasons;  // why this verdict, one sentence each
  std::optional<PairFigures> baseline, candidate;
  /// Relative change of the mean step time (what the bill follows), %: the test's estimate
  /// (samples, runs) or the ratio of the two means (threshold). Positive = slower.
  std::optional<double> change_pct;
  std::optional<std::array<double, 2>> change_pct_ci95;  // tested pairs only
  std::optional<double> median_change_pct;                // plain ratio of the medians, - 1
  /// The test's two-sided p-value (Benjamini–Hochberg runs on these), q-value and the degrees
  /// of freedom of its t. Absent when undecided.
  std::optional<double> p_value, q_value, dof;
  size_t baseline_runs = 0;                               // runs pooled into the baseline (0: one file)
  bool significant = false;                               // q <= alpha
  /// USD per step: total change and its split (time part at the baseline price, price part at
  /// the candidate's time: time + price = total), all in % of the baseline's USD per step.
  std::optional<double> cost_change_pct, cost_time_part_pct, cost_price_part_pct;
  std::optional<double> usd_per_step_change;  // candidate - baseline, currency
  bool price_moved = false;                   // the configuration's USD/h differs
};

/// A fact that makes the two runs not like for like.
struct ProvenanceWarning {
  std::string field;  // e.g. "host.cpu_model"
  std::string baseline, candidate;
  std::string message() const;
};

struct CompareReport {
  CompareSide baseline, candidate;  // reports without their results' samples are not needed later
  CompareOptions options;
  std::vector<ProvenanceWarning> warnings;
  std::vector<std::string> notes;
  std::vector<PairComparison> pairs;
  std::string currency = "USD";
  size_t tested_pairs = 0;  // pairs in the Benjamini–Hochberg family
  size_t count(Verdict verdict) const;
  /// 1 when a pair regressed, is missing or failed in the candidate; else 0.
  int exit_code() const;
};

/// The differences in host (CPU model, logical CPUs), libtorch version, BLAS, config sha256,
/// config name and price table (name, retrieval date, currency) between two runs.
std::vector<ProvenanceWarning> provenance_differences(const RunReport& baseline, const RunReport& candidate);

/// Compares. A pair whose sides have samples is tested (one run a side: welch_mean_change; a
/// pooled baseline: run_to_run_change) or, when the test cannot be made (too few steps or runs),
/// `undecided` saying why. Throws InputError (naming side.file and the JSON pointer) for a duplicate pair in
/// one side or a step-time sample that is not a finite number > 0; throws std::invalid_argument
/// for options out of range (alpha in (0, 1), thresholds >= 0).
CompareReport compare_runs(CompareSide baseline, CompareSide candidate, const CompareOptions& options);

}  // namespace pperf
