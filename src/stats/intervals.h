#pragma once
// The intervals pperf prints for a step time, and what they correct for. Free functions over
// step-time samples (ms); see docs/statistics.md for the estimators and their simulated coverage.
//
// - The mean (total time / steps) is what a job is billed for. Its interval is built on batch
//   means (k = n/10 batches, 6..30 of them): consecutive steps are averaged so serial
//   correlation stays inside a batch; Hall's (1992) transformation of Student's t corrects for
//   the skew rare slow steps give; the half-widths are widened by the batch means' lag-1
//   autocorrelation (what the batches did not absorb): their own, or the one the steps' lag-1
//   implies for them under AR(1), whichever is larger. The interval is then kept within the
//   fastest and the slowest step measured: a step time's mean cannot lie outside them, and with
//   few effectively independent batches (issue 60: 60 steps switching between ~14 and ~30 ms,
//   lag-1 0.82) the widened interval reached below every step and towards zero. Its standard
//   error (mean_with_error) is not bounded: compare and decide build on it as it is.
// - The median is the robust "typical step"; its interval is distribution-free (order
//   statistics), widened by the same factor the batch means show over independent steps.
// - Below kMinCiSteps samples there is no interval (nullopt): rarer slow steps than one in
//   twenty cannot have shown themselves yet, and no interval can cover what a sample has not
//   seen. Nor for samples without spread (a zero-width interval would claim certainty).
// - One level, 95 %, whatever made the run stop: the simulated coverage under the stop rule is
//   in docs/statistics.md.
#include <array>
#include <cstddef>
#include <optional>
#include <vector>

#include "src/core/result.h"

namespace pperf {

/// Fewest samples for any interval (and for the precision stop rule).
constexpr size_t kMinCiSteps = 60;

/// True when every sample is finite and > 0 (a step time; NaN, inf and <= 0 are not).
bool valid_step_times(const std::vector<double>& samples);

/// Lag-1 autocorrelation of log(samples): sum (l_i - m)(l_{i-1} - m) / sum (l_i - m)^2.
/// 0 for fewer than 3 samples or no variance. Samples must be > 0.
double lag1_autocorrelation_log(const std::vector<double>& samples);

/// The factor intervals are widened by for lag-1 autocorrelation r: sqrt((1 + r') / (1 - r')),
/// r' = r + (1 + 3r)/n (the small-sample bias of r, Marriott-Pope), clamped to [0, 0.9]: never
/// narrower than the independent-steps interval.
double autocorrelation_widening(double r, size_t n);

/// Lag-1 autocorrelation of the means of consecutive blocks of `block` steps of an AR(1) with
/// lag-1 `rho` (rho itself for one-step blocks, falling towards 0 as blocks grow); 0 for rho <= 0.
double ar1_block_means_lag1(double rho, double block);

/// Means of k consecutive, near-equal blocks of `samples` (k <= samples.size()).
std::vector<double> batch_means(const std::vector<double>& samples, size_t k);

/// The mean of the samples, its standard error from the batch means (widened as above) and that
/// error's degrees of freedom (batches - 1): what the mean's interval and `pperf compare`'s test
/// of two runs both stand on. nullopt where there is no interval.
struct MeanWithError {
  double mean = 0, se = 0, dof = 0;
};
std::optional<MeanWithError> mean_with_error(const std::vector<double>& samples);

/// The mean's interval at `level` (batch means, Hall's skew correction, widened, within the
/// fastest and slowest step; see above).
/// nullopt below kMinCiSteps, for invalid samples or for samples without spread.
std::optional<std::array<double, 2>> mean_interval(const std::vector<double>& samples, double level);

/// Order-statistic interval of the median at `level` (ranks from Binomial(n, 1/2)); with
/// widening w > 1 the ranks move away from the centre by w times their distance from it.
/// nullopt below kMinCiSteps, for invalid samples or for samples without spread.
std::optional<std::array<double, 2>> median_interval(std::vector<double> samples, double level,
                                                     double widening = 1);

/// Everything the measure stage reports about a step time's uncertainty, at 95 %.
struct StepIntervals {
  std::optional<std::array<double, 2>> median_ci, mean_ci;
  double lag1_r = 0;    ///< lag-1 autocorrelation of log step times
  double widening = 1;  ///< the mean's standard error from batch means over the independent-steps one (>= 1)
};
StepIntervals step_intervals(const std::vector<double>& samples, double level = 0.95);

/// The record's estimate from measured samples (median, mean, both intervals, r).
/// Samples must be non-empty.
StepTimeEstimate step_time_estimate(const std::vector<double>& samples);

/// Relative half-width (half the interval over the estimate) of both intervals, inf where
/// there is none: what the precision stop rule compares with its target.
struct RelativePrecision {
  double mean = 0, median = 0;
};
RelativePrecision relative_precision(const std::vector<double>& samples, double level = 0.95);

/// Mann-Kendall trend test: S = sum_{i<j} sign(x_j - x_i), z with continuity correction
/// (no tie correction), two-sided p. Above kMannKendallMaxPoints samples it runs on the means of
/// that many consecutive blocks, so it costs O(1) in n.
struct MannKendall {
  double s = 0, z = 0, p_value = 1;
};
constexpr size_t kMannKendallMaxPoints = 500;
MannKendall mann_kendall(const std::vector<double>& samples);
/// The measured steps still warm up: at least 10 of them, falling (z < 0) at p < 0.01. The
/// trend when they do, for the result's event and the writers' "warming up" note alike.
std::optional<MannKendall> warming_up_trend(const std::vector<double>& samples);


}  // namespace pperf
