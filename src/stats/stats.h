#pragma once
// Statistics over step-time samples: free functions, no state, no units assumed.
// Empty input is the caller's bug: every function requires at least one sample
// (stdev and cv need two; they return 0 for one).
#include <array>
#include <cstddef>
#include <vector>

namespace pperf {

double mean(const std::vector<double>& samples);
/// Sample standard deviation (n - 1 in the denominator).
double stdev(const std::vector<double>& samples);
/// Coefficient of variation: stdev / mean.
double cv(const std::vector<double>& samples);
/// Percentile p in [0, 100] with linear interpolation between closest ranks.
double percentile(std::vector<double> samples, double p);
double median(std::vector<double> samples);

/// 1-based ranks [lo, hi] of the order statistics bounding a distribution-free confidence
/// interval of the median at `confidence`: the largest lo with P(Binomial(n, 1/2) < lo) <=
/// (1 - confidence)/2, hi = n + 1 - lo. For n too small for that coverage, [1, n].
std::array<size_t, 2> median_ci_ranks(size_t n, double confidence = 0.95);
/// The 95 % confidence interval of the median, from order statistics (no normality assumed).
std::array<double, 2> median_ci95(std::vector<double> samples);

struct Summary {
  size_t n = 0;
  double median = 0, mean = 0, stdev = 0, cv = 0, p5 = 0, p95 = 0;
  std::array<double, 2> ci95{0, 0};
  /// Half-width of ci95 relative to the median: the precision the stop rule aims for.
  double rel_ci_halfwidth() const { return median > 0 ? (ci95[1] - ci95[0]) / 2 / median : 0; }
};
Summary summarize(const std::vector<double>& samples);

}  // namespace pperf
