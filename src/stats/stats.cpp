#include "src/stats/stats.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numeric>

namespace pperf {

double mean(const std::vector<double>& samples) {
  assert(!samples.empty());
  return std::accumulate(samples.begin(), samples.end(), 0.0) / samples.size();
}

double stdev(const std::vector<double>& samples) {
  if (samples.size() < 2) return 0;
  const double m = mean(samples);
  double sum_sq = 0;
  for (double x : samples) sum_sq += (x - m) * (x - m);
  return std::sqrt(sum_sq / (samples.size() - 1));
}

double cv(const std::vector<double>& samples) {
  const double m = mean(samples);
  return m != 0 ? stdev(samples) / m : 0;
}

double percentile(std::vector<double> samples, double p) {
  assert(!samples.empty());
  std::sort(samples.begin(), samples.end());
  const double rank = p / 100 * (samples.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(rank));
  const size_t above = std::min(below + 1, samples.size() - 1);
  return samples[below] + (rank - below) * (samples[above] - samples[below]);
}

double median(std::vector<double> samples) { return percentile(std::move(samples), 50); }

std::array<size_t, 2> median_ci_ranks(size_t n, double confidence) {
  const double tail = (1 - confidence) / 2;
  // P(B < lo) = sum_{i < lo} C(n, i) / 2^n, summed in log space so large n does not overflow.
  size_t lo = 0;
  double cdf = 0;
  for (size_t i = 0; i < n; ++i) {
    const double log_pmf =
        std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) - n * std::log(2.0);
    cdf += std::exp(log_pmf);
    if (cdf > tail) break;
    lo = i + 1;  // P(B <= i) <= tail, so P(B < i + 1) <= tail
  }
  if (lo == 0) return {1, n};
  return {lo, n + 1 - lo};
}

std::array<double, 2> median_ci95(std::vector<double> samples) {
  assert(!samples.empty());
  std::sort(samples.begin(), samples.end());
  const auto [lo, hi] = median_ci_ranks(samples.size());
  return {samples[lo - 1], samples[hi - 1]};
}

Summary summarize(const std::vector<double>& samples) {
  Summary s;
  s.n = samples.size();
  if (samples.empty()) return s;
  s.median = median(samples);
  s.mean = mean(samples);
  s.stdev = stdev(samples);
  s.cv = cv(samples);
  s.p5 = percentile(samples, 5);
  s.p95 = percentile(samples, 95);
  s.ci95 = median_ci95(samples);
  return s;
}

}  // namespace pperf
