#pragma once
// The intervals pperf prints for a step time, and what they correct for. Free functions over
// step-time samples (ms); see docs/statistics.md for the estimators and their simulated coverage.
//
// - The mean (total time / steps) is what a job is billed for; its interval is Student's t on
//   the samples, widened for serial correlation.
// - The median is the robust "typical step"; its interval is distribution-free (order
//   statistics), widened the same way.
// - Below kMinCiSteps samples there is no interval (nullopt), never a mislabeled [min, max].
// - After a run stopped on the precision target (optional stopping) the interval that carries
//   the 95 % label is computed at kStoppedNominalLevel, which restores ~95 % coverage.
#include <array>
#include <cstddef>
#include <optional>
#include <vector>

#include "bench/core/result.h"

namespace pperf {

/// Fewest samples for any interval (and for the precision stop rule).
constexpr size_t kMinCiSteps = 6;
/// Nominal level of the intervals labeled 95 % after the run stopped on the precision target.
constexpr double kStoppedNominalLevel = 0.975;

/// True when every sample is finite and > 0 (a step time; NaN, inf and <= 0 are not).
bool valid_step_times(const std::vector<double>& samples);

/// Lag-1 autocorrelation of log(samples): sum (l_i - m)(l_{i-1} - m) / sum (l_i - m)^2.
/// 0 for fewer than 3 samples or no variance. Samples must be > 0.
double lag1_autocorrelation_log(const std::vector<double>& samples);

/// The factor intervals are widened by for lag-1 autocorrelation r: sqrt((1 + r') / (1 - r')),
/// r' = r + (1 + 3r)/n (the small-sample bias of r, Marriott-Pope), clamped to [0, 0.9]: never
/// narrower than the independent-steps interval.
double autocorrelation_widening(double r, size_t n);

/// Student-t interval of the mean at `level`, half-width multiplied by `widening`.
/// nullopt below kMinCiSteps or for invalid samples.
std::optional<std::array<double, 2>> mean_interval(const std::vector<double>& samples, double level,
                                                   double widening = 1);

/// Order-statistic interval of the median at `level` (ranks from Binomial(n, 1/2)); with
/// widening w > 1 the ranks move away from the centre by w times their distance from it.
/// nullopt below kMinCiSteps or for invalid samples.
std::optional<std::array<double, 2>> median_interval(std::vector<double> samples, double level,
                                                     double widening = 1);

/// Everything the measure stage reports about a step time's uncertainty.
struct StepIntervals {
  std::optional<std::array<double, 2>> median_ci, mean_ci;
  double lag1_r = 0;        ///< lag-1 autocorrelation of log step times
  double widening = 1;      ///< autocorrelation_widening(lag1_r, n)
  double nominal_level = 0.95;
};
/// Both intervals at 0.95 nominal, or kStoppedNominalLevel when `stopped_on_target`.
StepIntervals step_intervals(const std::vector<double>& samples, bool stopped_on_target);

/// The record's estimate from measured samples (median, mean, both intervals, r, level).
/// Samples must be non-empty.
StepTimeEstimate step_time_estimate(const std::vector<double>& samples, bool stopped_on_target);

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

/// Running sums for the stop rule's precision check: O(1) per added sample for the mean's
/// interval and the lag-1 autocorrelation; the median's interval is O(n) (nth_element), so the
/// stop rule asks for it rarely (see stopping.cpp).
class IncrementalPrecision {
 public:
  void add(double x);
  size_t n() const { return static_cast<size_t>(n_); }
  double mean() const { return n_ ? sum_ / n_ : 0; }
  /// Lag-1 autocorrelation of the log samples so far (same value as lag1_autocorrelation_log).
  double lag1_r() const;
  /// Relative half-width of the mean's interval at `level` (widened), inf when undefined.
  double mean_rel_halfwidth(double level) const;
  /// Relative half-width of the median's interval at `level` (widened) of `samples` (the same
  /// ones that were added), inf when undefined. O(n).
  double median_rel_halfwidth(const std::vector<double>& samples, double level) const;

 private:
  double n_ = 0, sum_ = 0;
  double m_ = 0, m2_ = 0;  // Welford on x
  bool bad_ = false;       // a sample was NaN, inf or <= 0
  // log sums, shifted by the first log value: sum l, sum l^2, sum l_i l_{i-1}
  double log0_ = 0, sl_ = 0, sll_ = 0, slag_ = 0, l_first_ = 0, l_last_ = 0;
  mutable std::vector<double> scratch_;
  double t_quantile_cached(double level, double dof) const;
  mutable double cached_level_ = -1, z_ = 0;
};

}  // namespace pperf
