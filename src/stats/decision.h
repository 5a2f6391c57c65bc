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
#include <cstdint>
#include <optional>
#include <vector>

#include "src/core/result.h"

namespace pperf {

struct DecisionSettings {
  double confidence = 0.95;
  double equivalence_pct = Decision{}.equivalence_pct;  // the record's default: one place
  /// Rounds before the first look: the rounds' variance must be estimable (and each side
  /// needs kMinCiSteps for its own interval anyway).
  size_t min_rounds = 8;
  /// Early looks (issue 40, item 9): from this round until min_rounds, a difference large enough
  /// to clear a fixed-sample Student t interval at a small share of the error may be called
  /// cheaper or dearer before the first look of the sequence. 0 (or >= min_rounds): none.
  /// (From 3 rounds, a Student t interval on rounds with rare slow steps covered 93.7 % after an
  /// early stop, docs/statistics.md; from 5, 94.9 % or more.) 6: at 10-step rounds the first
  /// round where each side has kMinCiSteps steps, so a result decided early keeps its own
  /// interval (settings_for_turns raises it for shorter rounds).
  size_t early_look_rounds = 6;
  /// The share of 1 - confidence the early looks spend, split equally between them (Bonferroni);
  /// the confidence sequence is built at the rest.
  double early_error_share = 0.1;
  /// The round count the mixture is tuned for (tightest there; valid at every round).
  double planned_rounds = 30;
  /// The most paired rounds the run can take, known before it starts (its budget in rounds);
  /// 0: unknown. When known (min_rounds < horizon <= kMaxHorizonRounds) the sequence is narrowed
  /// by horizon_scale, spending its error by the horizon instead of over an endless run. A run
  /// cannot outlast it (budget_rounds); were it to, rounds past it use the endless sequence, whose
  /// error then adds to what the narrowed one spent.
  size_t horizon_rounds = 0;
};

/// The horizon of runs in turns: the most rounds a budget of max_steps steps per configuration
/// allows at round_steps timed steps a round (the turns end after the first round that reaches
/// max_steps). A time budget (max_seconds) can only end the run sooner, which keeps the error
/// within what the horizon spends. 0 (unknown) when either is not positive.
size_t budget_rounds(int64_t max_steps, int64_t round_steps);

/// The settings a run in turns decides with: `settings` told the horizon (budget_rounds of
/// max_steps at round_steps timed steps a round) and with no early look before each side has
/// kMinCiSteps steps. The one place the measuring run, the pricing of its results and the sweep
/// report's replay get them from, so the verdict printed is the one the run stopped on.
DecisionSettings settings_for_turns(DecisionSettings settings, int64_t max_steps, int64_t round_steps);

/// The error (two-sided) the confidence sequence is built at: 1 - confidence, less the early
/// looks' share when there are early looks.
double sequence_alpha(const DecisionSettings& settings);
/// The fixed-sample confidence of each early look: 1 - the early looks' error / their number;
/// 0 when there are none.
double early_look_confidence(const DecisionSettings& settings);

/// The longest horizon the sequence is tuned for; beyond it the endless sequence is used.
constexpr size_t kMaxHorizonRounds = 2000;

/// The factor (<= 1) on the mixture boundary that makes a Gaussian random walk with known
/// variance, looked at after every round from min_rounds to horizon_rounds, cross it with
/// probability 40 % of sequence_alpha (the rest is left to the rounds' estimated variance and
/// correlation); computed by numerical integration on a 0.1-sd grid, the factor to 1e-4, and
/// cached. 1 when the horizon is unknown, longer than kMaxHorizonRounds, not past min_rounds, or
/// long enough that the endless sequence already crosses less often than that.
double horizon_scale(const DecisionSettings& settings);

/// What the step timer resolves (steady_clock: a nanosecond), ms. Paired rounds whose terms
/// spread less than this over their smaller mean have no spread: no interval, no verdict.
constexpr double kTimerResolutionMs = 1e-6;

/// How people read a verdict against "the baseline" named by the caller: "cheaper per step",
/// "dearer per step", "the same cost per step within ±2 %", "undecided".
std::string verdict_phrase(CostVerdict verdict, double equivalence_pct);

/// The candidate's hourly price over the baseline's as [lo, hi]: lo == hi for point prices; with
/// a price range (Spot) the candidate's cheapest over the baseline's dearest, and the reverse.
using PriceRatio = std::array<double, 2>;

/// The interval of the improvement (%) from a log-ratio interval of candidate / baseline mean
/// step times and the price ratio: [1 - hi price x hi time, 1 - lo price x lo time], so a
/// verdict read from it holds at both ends of a price range.
std::array<double, 2> improvement_bounds(std::array<double, 2> log_time_ratio, PriceRatio price_ratio);
inline std::array<double, 2> improvement_bounds(std::array<double, 2> log_time_ratio, double price_ratio) {
  return improvement_bounds(log_time_ratio, PriceRatio{price_ratio, price_ratio});
}

/// The verdict an improvement interval (%) supports: equivalent when it lies within
/// +-equivalence_pct, else cheaper when it is above 0, dearer when below, else undecided.
CostVerdict verdict_of(const std::array<double, 2>& improvement_pct, double equivalence_pct);

/// Confidence-sequence half-width on the log ratio after `rounds` paired rounds whose
/// linearised log-ratio terms have standard deviation `sd` (exposed for tests and the planner).
double confidence_sequence_halfwidth(double sd, size_t rounds, const DecisionSettings& settings);

/// Each side's timed steps (ms) in the order measured, `round_steps` to a round (its rounds are
/// the whole ones; a last, partial round is ignored). What the decision sees when the steps are
/// known: their correlation within rounds tells the rounds' correlation sooner than the round
/// means can (issue 40 item 9).
struct RoundSteps {
  std::vector<double> step_ms;
  int64_t round_steps = 0;
  /// The mean of each whole round, in order.
  std::vector<double> round_means() const;
};

/// The fewest un-timed steps of a side between its rounds (src/measure/runner.h takes at least
/// one): the step-level correlation is carried to the next round over this gap. Real gaps are
/// longer (the other sides' turns lie between too), so the rounds' correlation is over-stated,
/// never under-stated, for AR(1) steps.
constexpr int64_t kAssumedGapSteps = 1;

/// What the steps within the first `rounds` rounds imply for the paired rounds' linearised terms
/// (c_j / mc - b_j / mb), if each side's steps are AR(1): each side's step-level lag-1
/// correlation rho is fitted to its steps' deviations from their round's mean (pooled over
/// rounds, the exact expectation under AR(1) inverted, clamped to [0, 0.99]) and their variance
/// estimated alike; carried to the round means (lag-1 correlation rho^(gap + 1) (sum rho^i)^2 /
/// sum rho^|i-j| over a round's n steps, gap = kAssumedGapSteps; variance sum rho^|i-j| / n^2
/// times the steps'), the sides' summed. Blind to a correlation that is not AR(1) at the step
/// level (a side's speed wandering from round to round): round_correlation_widening guards
/// against it. nullopt below 2 rounds, with rounds of fewer than 3 steps, or without spread.
struct StepImplied {
  double lag1 = 0;      // the terms' lag-1 correlation
  double variance = 0;  // the terms' variance
};
std::optional<StepImplied> step_implied(const RoundSteps& baseline, const RoundSteps& candidate, size_t rounds);

/// Widening of the confidence sequence for serial correlation between rounds: sqrt((1 + r) /
/// (1 - r)) for the linearised terms' lag-1 autocorrelation r, clamped to [0, 0.9]; 1 below 3
/// rounds. A host whose speed wanders over several rounds makes neighbouring rounds alike, and
/// the rounds' variance alone under-states the spread of their mean. Without `steps`, r is the
/// terms' own lag-1 estimate, bias-corrected (r + (1 + 3 r) / t), raised by half its standard
/// error (0.5 / sqrt(t)): a few rounds say little about their correlation. With `steps` (what
/// the steps imply, step_implied) r is the steps' lag-1 for the share of the terms' variance the
/// steps explain, and the rounds' rule for the share e they leave unexplained (e from the terms'
/// variance over the steps', taken kUnexplainedZ standard errors high; a correlation the steps
/// cannot see is carried by variance they do not show): the rounds' rule clamped to
/// [(1 - e) lag1, (1 - e) lag1 + e];
/// and the rounds' rule alone when the terms' own estimate exceeds the steps' by more than
/// kCorrelationGuardZ standard errors (1 / sqrt(t)).
double round_correlation_widening(const std::vector<double>& terms, const std::optional<StepImplied>& steps = std::nullopt);
/// How many standard errors the rounds' own lag-1 estimate may exceed the steps' before the
/// rounds' rule takes over (one-sided 5 %).
constexpr double kCorrelationGuardZ = 1.645;
/// The terms' variance the steps leave unexplained is taken at this many standard errors of its
/// log above its estimate (0: the goal of item 9 met, 0.58 against the fixed-sample t design,
/// but a side's speed wandering over rounds took 6 % A/A false decisions; 1: 0.63;
/// docs/statistics.md).
constexpr double kUnexplainedZ = 0.5;

/// The anytime interval of mean(candidate) / mean(baseline) after the paired rounds so far: the
/// confidence sequence (widened for the rounds' correlation) at the current round. It holds
/// however the run was stopped, so it is the one interval printed for runs that took turns.
/// nullopt below 2 paired rounds or when the rounds have no spread.
std::optional<std::array<double, 2>> anytime_time_ratio_interval(const std::vector<double>& baseline_round_ms,
                                                                 const std::vector<double>& candidate_round_ms,
                                                                 const DecisionSettings& settings);

/// The same from each side's steps: the rounds' correlation from the steps within them.
std::optional<std::array<double, 2>> anytime_time_ratio_interval(const RoundSteps& baseline, const RoundSteps& candidate,
                                                                 const DecisionSettings& settings);

/// Rounds in all (counted from the first) an undecided comparison would likely need, found by
/// simulating the rest of the run: 200 paths, each drawing further rounds from the paired rounds
/// so far (resampled, the candidate's scaled by exp(d), d drawn around the present log-ratio
/// estimate shrunk towards break-even, spread by 0.75 se) and read by the real rule after each
/// round. `low`..`high` (10th to 90th percentiles: an 80 % range) of the paths' stopping rounds,
/// and `median` from 200 more paths with d spread by 0.45 se (both calibrated over a mix of
/// cases, docs/statistics.md); a path still undecided at kRoundsToDecideHorizon rounds counts as
/// never (infinite). The paths look from min_rounds on
/// (decide_interleaved predicts only then, past the early looks). Deterministic (a fixed seed).
/// nullopt below 2 rounds or without spread; an infinite `median`: likely never.
constexpr size_t kRoundsToDecideHorizon = 1000;
struct RoundsToDecide {
  double median = 0, low = 0, high = 0;
};
std::optional<RoundsToDecide> rounds_to_decide(const std::vector<double>& baseline_round_ms,
                                               const std::vector<double>& candidate_round_ms, PriceRatio price_ratio,
                                               const DecisionSettings& settings);
/// The same from each side's steps: the paths resample whole rounds' means and carry the steps'
/// correlation estimate (step_implied of the rounds so far) along.
std::optional<RoundsToDecide> rounds_to_decide(const RoundSteps& baseline, const RoundSteps& candidate,
                                               PriceRatio price_ratio, const DecisionSettings& settings);

/// The fixed-sample interval of mean(candidate) / mean(baseline) from paired round means (the
/// same linearised terms as the decision, Student t over the rounds): drift shared within a round
/// cancels. Valid for a number of rounds fixed in advance only; a run stopped by its decision
/// prints anytime_time_ratio_interval. nullopt below 2 paired rounds or without spread.
std::optional<std::array<double, 2>> paired_time_ratio_interval(const std::vector<double>& baseline_round_ms,
                                                                const std::vector<double>& candidate_round_ms,
                                                                double confidence = 0.95);

/// A run in turns as one fixed-sample estimate of log(mean candidate / mean baseline) over its
/// whole rounds (a replicate, src/stats/replicates.h): the paired terms' mean, its standard error
/// (their sd / sqrt(t), widened for the rounds' correlation as the decision is:
/// round_correlation_widening with the steps) and its degrees of freedom t - 1. Valid for a run
/// measured to its budget, not one stopped by its own decision. nullopt below 2 rounds or without
/// spread.
struct PairedLogRatio {
  double log_ratio = 0, se = 0, dof = 0;
};
std::optional<PairedLogRatio> paired_log_ratio(const RoundSteps& baseline, const RoundSteps& candidate);

/// Decides from paired round means (ms; baseline's and candidate's round j measured next to
/// each other; extra rounds on either side are ignored). improvement_pct_bounds is the anytime
/// interval (set from 2 rounds with spread, even before the first look); the verdict is read
/// from it from min_rounds on. At an early look (early_look_rounds <= rounds < min_rounds) a
/// Student t interval at early_look_confidence (widened for the rounds' correlation as the
/// sequence is) that says cheaper or dearer decides, and is the interval given: every look's interval holds at once with the stated confidence (the early
/// looks' error plus the sequence's). Rounds without spread: undecided, no interval, the reason says
/// why. `seconds_per_round`: measured seconds one configuration spends per round, for the
/// budget an undecided result would likely need (0: unknown).
Decision decide_interleaved(const std::vector<double>& baseline_round_ms, const std::vector<double>& candidate_round_ms,
                            PriceRatio price_ratio, const DecisionSettings& settings, double seconds_per_round = 0);
inline Decision decide_interleaved(const std::vector<double>& baseline_round_ms, const std::vector<double>& candidate_round_ms,
                                   double price_ratio, const DecisionSettings& settings, double seconds_per_round = 0) {
  return decide_interleaved(baseline_round_ms, candidate_round_ms, PriceRatio{price_ratio, price_ratio}, settings,
                            seconds_per_round);
}
/// The same from each side's steps (round means computed here), the rounds' correlation from the
/// steps within them (step_implied, guarded by the rounds' own estimate): the
/// form every caller with the steps uses. Rounds of both sides are paired as above.
Decision decide_interleaved(const RoundSteps& baseline, const RoundSteps& candidate, PriceRatio price_ratio,
                            const DecisionSettings& settings, double seconds_per_round = 0);
inline Decision decide_interleaved(const RoundSteps& baseline, const RoundSteps& candidate, double price_ratio,
                                   const DecisionSettings& settings, double seconds_per_round = 0) {
  return decide_interleaved(baseline, candidate, PriceRatio{price_ratio, price_ratio}, settings, seconds_per_round);
}

/// Decides once from a fixed-sample interval of the ratio of mean step times (candidate /
/// baseline; sequential measurement), or from step times given rather than measured (`given`:
/// the ratio is exact, lo = hi). nullopt interval: undecided, saying why.
Decision decide_fixed(const std::optional<std::array<double, 2>>& time_ratio_ci, PriceRatio price_ratio,
                      const DecisionSettings& settings, bool given = false);
inline Decision decide_fixed(const std::optional<std::array<double, 2>>& time_ratio_ci, double price_ratio,
                             const DecisionSettings& settings, bool given = false) {
  return decide_fixed(time_ratio_ci, PriceRatio{price_ratio, price_ratio}, settings, given);
}

}  // namespace pperf
