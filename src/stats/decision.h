#pragma once
// Is a configuration cheaper per step than its baseline? Decided from step times and the ratio
// of the two hourly prices (a number: the decision never sees a price table), at a stated
// confidence, with "equivalent" for a difference inside the equivalence margin.
//
// Interleaved runs (paired rounds, src/measure/interleave.h) use a confidence sequence: an
// interval for the log ratio of mean step times that holds at every round at once (Robbins'
// normal mixture with the rounds' own variance, Waudby-Smith et al. 2024, "Time-uniform
// central limit theory"), so the run may look after every round and stop when decided without
// inflating the error. Sequential runs look once, at the fixed-sample interval of the ratio.
// docs/statistics.md has the simulated false-decision rates.
#include <array>
#include <optional>
#include <vector>

#include "src/core/result.h"

namespace pperf {

struct DecisionSettings {
  double confidence = 0.95;
  double equivalence_pct = 2;
  /// Rounds before the first look: the rounds' variance must be estimable (and each side
  /// needs kMinCiSteps for its own interval anyway).
  size_t min_rounds = 8;
  /// The round count the mixture is tuned for (tightest there; valid at every round).
  double planned_rounds = 30;
};

/// How people read a verdict against "the baseline" named by the caller: "cheaper per step",
/// "dearer per step", "the same cost per step within ±2 %", "undecided".
std::string verdict_phrase(CostVerdict verdict, double equivalence_pct);

/// The interval of the improvement (%) from a log-ratio interval of candidate / baseline mean
/// step times and the price ratio (candidate's $/h over the baseline's).
std::array<double, 2> improvement_bounds(std::array<double, 2> log_time_ratio, double price_ratio);

/// The verdict an improvement interval (%) supports: equivalent when it lies within
/// +-equivalence_pct, else cheaper when it is above 0, dearer when below, else undecided.
CostVerdict verdict_of(const std::array<double, 2>& improvement_pct, double equivalence_pct);

/// Confidence-sequence half-width on the log ratio after `rounds` paired rounds whose
/// linearised log-ratio terms have standard deviation `sd` (exposed for tests and the planner).
double confidence_sequence_halfwidth(double sd, size_t rounds, const DecisionSettings& settings);

/// The fixed-sample interval of mean(candidate) / mean(baseline) from paired round means (the
/// same linearised terms as the decision, Student t over the rounds): drift shared within a round
/// cancels. nullopt below 2 paired rounds or without spread.
std::optional<std::array<double, 2>> paired_time_ratio_interval(const std::vector<double>& baseline_round_ms,
                                                                const std::vector<double>& candidate_round_ms,
                                                                double confidence = 0.95);

/// Decides from paired round means (ms; baseline's and candidate's round j measured next to
/// each other; extra rounds on either side are ignored). `seconds_per_round`: measured seconds
/// one configuration spends per round, for the budget an undecided result would likely need
/// (0: unknown).
Decision decide_interleaved(const std::vector<double>& baseline_round_ms, const std::vector<double>& candidate_round_ms,
                            double price_ratio, const DecisionSettings& settings, double seconds_per_round = 0);

/// Decides once from a fixed-sample interval of the ratio of mean step times (candidate /
/// baseline; sequential measurement), or from step times given rather than measured (`given`:
/// the ratio is exact, lo = hi). nullopt interval: undecided, saying why.
Decision decide_fixed(const std::optional<std::array<double, 2>>& time_ratio_ci, double price_ratio,
                      const DecisionSettings& settings, bool given = false);

}  // namespace pperf
