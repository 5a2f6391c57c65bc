#include "src/stats/intervals.h"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <functional>
#include <limits>

#include "src/stats/stats.h"

namespace pperf {

namespace {
double t_quantile(double level, double dof) {
  return boost::math::quantile(boost::math::students_t(dof), 0.5 + level / 2);
}

/// Ranks [lo, hi] (1-based) of the median's interval at `level`, moved out by `widening`.
std::array<size_t, 2> widened_ranks(size_t n, double level, double widening) {
  auto [lo, hi] = median_ci_ranks(n, level);
  if (widening > 1) {
    const double centre = (n + 1) / 2.0;
    const double d = (centre - lo) * widening;
    lo = static_cast<size_t>(std::max(1.0, std::floor(centre - d)));
    hi = n + 1 - lo;
  }
  return {lo, hi};
}
}  // namespace

bool valid_step_times(const std::vector<double>& samples) {
  return std::all_of(samples.begin(), samples.end(), [](double x) { return std::isfinite(x) && x > 0; });
}

double lag1_autocorrelation_log(const std::vector<double>& samples) {
  const size_t n = samples.size();
  if (n < 3) return 0;
  std::vector<double> l(n);
  double m = 0;
  for (size_t i = 0; i < n; ++i) m += l[i] = std::log(samples[i]);
  m /= n;
  double num = 0, den = 0;
  for (size_t i = 0; i < n; ++i) {
    den += (l[i] - m) * (l[i] - m);
    if (i > 0) num += (l[i] - m) * (l[i - 1] - m);
  }
  return den > 0 ? num / den : 0;
}

namespace {
/// r + (1 + 3r)/n (Marriott-Pope: the small-sample bias of a lag-1 r), clamped to [0, most].
double corrected_lag1(double r, size_t n, double most = 0.9) {
  return std::clamp(r + (1 + 3 * r) / static_cast<double>(n), 0.0, most);
}
double widening_for(double r) { return std::sqrt((1 + r) / (1 - r)); }
}  // namespace

double autocorrelation_widening(double r, size_t n) { return n < 3 ? 1 : widening_for(corrected_lag1(r, n)); }

double ar1_block_means_lag1(double rho, double block) {
  if (!(rho > 0) || !(block >= 1)) return 0;
  // Neighbouring blocks' sums: covariance rho (1 - rho^b)^2 / (1 - rho)^2; each sum's variance
  // b (1 + rho) / (1 - rho) - 2 rho (1 - rho^b) / (1 - rho)^2 (unit-variance steps).
  const double rb = std::pow(rho, block), q = (1 - rho) * (1 - rho);
  return rho * (1 - rb) * (1 - rb) / q / (block * (1 + rho) / (1 - rho) - 2 * rho * (1 - rb) / q);
}

namespace {
/// Batches for n samples: n/10 (so a batch spans ten steps, several correlation lengths of
/// the AR(1) r = 0.5 steps the coverage suite draws), at least 6, at most 30.
size_t batch_count(size_t n) { return std::clamp<size_t>(n / 10, 6, 30); }

bool has_spread(const std::vector<double>& samples) {
  return std::adjacent_find(samples.begin(), samples.end(), std::not_equal_to<>()) != samples.end();
}

bool interval_possible(const std::vector<double>& samples) {
  return samples.size() >= kMinCiSteps && valid_step_times(samples) && has_spread(samples);
}

/// The mean's interval with its standard error over the independent-steps one.
struct BatchMeansInterval {
  std::array<double, 2> ci{0, 0};
  double widening = 1;
};
/// The batch means' figures both the mean's interval and mean_with_error use.
struct BatchFigures {
  std::vector<double> means;
  MeanWithError error;
};
/// `steps_lag1`: lag1_autocorrelation_log(samples), which step_intervals has already.
BatchFigures batch_figures(const std::vector<double>& samples, double steps_lag1) {
  const size_t k = batch_count(samples.size());
  BatchFigures f{batch_means(samples, k), {}};
  const double kk = static_cast<double>(k);
  f.error.mean = mean(f.means);
  // The batch means' lag-1: their own, or the one every step's lag-1 implies for means of n/k
  // consecutive AR(1) steps, whichever is larger. Six to thirty batch means estimate it too
  // noisily for steps correlated at r = 0.8 (their interval covered 92.7-94.5 %); the steps' n - 1
  // pairs do not, and the batch means' own still catch what an AR(1) of the steps misses.
  const double n = static_cast<double>(samples.size());
  const double steps_r = corrected_lag1(steps_lag1, samples.size(), 0.99);
  const double r = std::max(corrected_lag1(lag1_autocorrelation_log(f.means), k),
                            std::min(0.9, ar1_block_means_lag1(steps_r, n / kk)));
  f.error.se = stdev(f.means) / std::sqrt(kk) * widening_for(r);
  f.error.dof = kk - 1;
  return f;
}

BatchMeansInterval batch_means_interval(const std::vector<double>& samples, double level, double steps_lag1) {
  const BatchFigures f = batch_figures(samples, steps_lag1);
  const std::vector<double>& b = f.means;
  const double m = f.error.mean, se = f.error.se, kk = static_cast<double>(b.size());
  double m3 = 0;
  for (double x : b) m3 += (x - m) * (x - m) * (x - m);
  const double s_pop = stdev(b) * std::sqrt((kk - 1) / kk);
  const double skew = s_pop > 0 ? m3 / kk / (s_pop * s_pop * s_pop) : 0;
  const double t = t_quantile(level, f.error.dof);
  // Hall (1992): T -> T + a T^2 + a^2 T^3 / 3 + a / 2 with a = skew / (3 sqrt(k)) is monotone,
  // so its inverse maps t's quantiles to the skew-corrected ones; a right skew (slow steps)
  // stretches the upper end.
  const double a = skew / (3 * std::sqrt(kk));
  auto inverse = [&](double x) { return std::abs(a) < 1e-12 ? x : (std::cbrt(1 + 3 * a * (x - a / 2)) - 1) / a; };
  BatchMeansInterval out;
  out.ci = {m - se * inverse(t), m - se * inverse(-t)};
  // Never beyond the fastest or the slowest step measured: with few effectively independent
  // batches (steps that switch between two speeds for 5-20 steps at a time) the widened t
  // interval can reach below every step, even below zero; the mean of such steps cannot.
  const auto [fastest, slowest] = std::minmax_element(samples.begin(), samples.end());
  out.ci = {std::max(out.ci[0], *fastest), std::min(out.ci[1], *slowest)};
  const double iid_se = stdev(samples) / std::sqrt(static_cast<double>(samples.size()));
  out.widening = iid_se > 0 ? std::max(1.0, se / iid_se) : 1;
  return out;
}
}  // namespace

std::vector<double> batch_means(const std::vector<double>& samples, size_t k) {
  const size_t n = samples.size();
  std::vector<double> out(k, 0);
  for (size_t j = 0; j < k; ++j) {
    const size_t from = j * n / k, to = (j + 1) * n / k;
    for (size_t i = from; i < to; ++i) out[j] += samples[i];
    out[j] /= static_cast<double>(to - from);
  }
  return out;
}

std::optional<MeanWithError> mean_with_error(const std::vector<double>& samples) {
  if (!interval_possible(samples)) return std::nullopt;
  return batch_figures(samples, lag1_autocorrelation_log(samples)).error;
}

std::optional<std::array<double, 2>> mean_interval(const std::vector<double>& samples, double level) {
  if (!interval_possible(samples)) return std::nullopt;
  return batch_means_interval(samples, level, lag1_autocorrelation_log(samples)).ci;
}

std::optional<std::array<double, 2>> median_interval(std::vector<double> samples, double level, double widening) {
  if (!interval_possible(samples)) return std::nullopt;
  const auto [lo, hi] = widened_ranks(samples.size(), level, widening);
  std::nth_element(samples.begin(), samples.begin() + (lo - 1), samples.end());
  const double lo_value = samples[lo - 1];
  std::nth_element(samples.begin() + lo, samples.begin() + (hi - 1), samples.end());
  return std::array<double, 2>{lo_value, samples[hi - 1]};
}

StepIntervals step_intervals(const std::vector<double>& samples, double level) {
  StepIntervals s;
  if (!valid_step_times(samples)) return s;
  s.lag1_r = lag1_autocorrelation_log(samples);
  if (!interval_possible(samples)) return s;
  const BatchMeansInterval bm = batch_means_interval(samples, level, s.lag1_r);
  s.mean_ci = bm.ci;
  s.widening = bm.widening;
  s.median_ci = median_interval(samples, level, s.widening);
  return s;
}

StepTimeEstimate step_time_estimate(const std::vector<double>& samples) {
  const StepIntervals ci = step_intervals(samples);
  return StepTimeEstimate{median(samples), ci.median_ci, mean(samples), ci.mean_ci, 0.95, ci.lag1_r};
}

RelativePrecision relative_precision(const std::vector<double>& samples, double level) {
  const double inf = std::numeric_limits<double>::infinity();
  const StepIntervals ci = step_intervals(samples, level);
  auto relative = [](const std::optional<std::array<double, 2>>& c, double centre) {
    return (c->at(1) - c->at(0)) / 2 / centre;
  };
  RelativePrecision p{inf, inf};
  if (ci.mean_ci) p.mean = relative(ci.mean_ci, mean(samples));
  if (ci.median_ci) p.median = relative(ci.median_ci, median(samples));
  return p;
}

std::optional<MannKendall> warming_up_trend(const std::vector<double>& samples) {
  if (samples.size() < 10) return std::nullopt;
  const MannKendall mk = mann_kendall(samples);
  return mk.z < 0 && mk.p_value < 0.01 ? std::optional<MannKendall>(mk) : std::nullopt;
}

MannKendall mann_kendall(const std::vector<double>& samples) {
  std::vector<double> x = samples;
  if (x.size() > kMannKendallMaxPoints) {
    x.assign(kMannKendallMaxPoints, 0);
    const size_t n = samples.size();
    for (size_t b = 0; b < kMannKendallMaxPoints; ++b) {
      const size_t from = b * n / kMannKendallMaxPoints, to = (b + 1) * n / kMannKendallMaxPoints;
      for (size_t i = from; i < to; ++i) x[b] += samples[i];
      x[b] /= static_cast<double>(to - from);
    }
  }
  MannKendall mk;
  const double n = static_cast<double>(x.size());
  if (x.size() < 3) return mk;
  for (size_t i = 0; i < x.size(); ++i)
    for (size_t j = i + 1; j < x.size(); ++j) mk.s += (x[j] > x[i]) - (x[j] < x[i]);
  const double sigma = std::sqrt(n * (n - 1) * (2 * n + 5) / 18);
  mk.z = mk.s == 0 ? 0 : (mk.s - (mk.s > 0 ? 1 : -1)) / sigma;
  mk.p_value = 2 * boost::math::cdf(boost::math::complement(boost::math::normal(), std::abs(mk.z)));
  return mk;
}

}  // namespace pperf
