#include "bench/stats/intervals.h"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>

#include "bench/stats/stats.h"

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

double autocorrelation_widening(double r, size_t n) {
  if (n < 3) return 1;
  const double corrected = std::clamp(r + (1 + 3 * r) / n, 0.0, 0.9);
  return std::sqrt((1 + corrected) / (1 - corrected));
}

std::optional<std::array<double, 2>> mean_interval(const std::vector<double>& samples, double level,
                                                   double widening) {
  if (samples.size() < kMinCiSteps || !valid_step_times(samples)) return std::nullopt;
  const double m = mean(samples);
  const double half = t_quantile(level, samples.size() - 1.0) * stdev(samples) / std::sqrt(samples.size()) * widening;
  return std::array<double, 2>{m - half, m + half};
}

std::optional<std::array<double, 2>> median_interval(std::vector<double> samples, double level, double widening) {
  if (samples.size() < kMinCiSteps || !valid_step_times(samples)) return std::nullopt;
  const auto [lo, hi] = widened_ranks(samples.size(), level, widening);
  std::nth_element(samples.begin(), samples.begin() + (lo - 1), samples.end());
  const double lo_value = samples[lo - 1];
  std::nth_element(samples.begin() + lo, samples.begin() + (hi - 1), samples.end());
  return std::array<double, 2>{lo_value, samples[hi - 1]};
}

StepIntervals step_intervals(const std::vector<double>& samples, bool stopped_on_target) {
  StepIntervals s;
  s.nominal_level = stopped_on_target ? kStoppedNominalLevel : 0.95;
  if (!valid_step_times(samples)) return s;
  s.lag1_r = lag1_autocorrelation_log(samples);
  s.widening = autocorrelation_widening(s.lag1_r, samples.size());
  s.median_ci = median_interval(samples, s.nominal_level, s.widening);
  s.mean_ci = mean_interval(samples, s.nominal_level, s.widening);
  return s;
}

StepTimeEstimate step_time_estimate(const std::vector<double>& samples, bool stopped_on_target) {
  const StepIntervals ci = step_intervals(samples, stopped_on_target);
  return StepTimeEstimate{median(samples), ci.median_ci, mean(samples), ci.mean_ci, ci.nominal_level, ci.lag1_r};
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

void IncrementalPrecision::add(double x) {
  n_ += 1;
  sum_ += x;
  const double delta = x - m_;
  m_ += delta / n_;
  m2_ += delta * (x - m_);
  if (!(x > 0) || !std::isfinite(x)) {
    bad_ = true;  // mean_rel_halfwidth reports inf from now on
    return;
  }
  if (n_ == 1) log0_ = std::log(x);
  const double l = std::log(x) - log0_;
  if (n_ == 1) l_first_ = l;
  else slag_ += l * l_last_;
  sl_ += l;
  sll_ += l * l;
  l_last_ = l;
}

double IncrementalPrecision::lag1_r() const {
  if (n_ < 3) return 0;
  const double m = sl_ / n_;
  const double den = sll_ - n_ * m * m;
  const double num = slag_ - m * ((sl_ - l_first_) + (sl_ - l_last_)) + (n_ - 1) * m * m;
  return den > 0 ? num / den : 0;
}

double IncrementalPrecision::t_quantile_cached(double level, double dof) const {
  // Exact (Boost) up to 200 degrees of freedom, computed once per process for the stop rule's
  // 95 %; beyond, the Cornish-Fisher expansion of t around the normal quantile (relative error
  // < 1e-7 there), so a run does not pay a Boost quantile per step.
  constexpr size_t kExactDof = 200;
  static const std::vector<double> t95 = [] {
    std::vector<double> t(kExactDof + 1, 0);
    for (size_t dof = 1; dof <= kExactDof; ++dof) t[dof] = t_quantile(0.95, static_cast<double>(dof));
    return t;
  }();
  if (dof <= kExactDof) return level == 0.95 ? t95[static_cast<size_t>(dof)] : t_quantile(level, dof);
  if (level != cached_level_) {
    cached_level_ = level;
    z_ = boost::math::quantile(boost::math::normal(), 0.5 + level / 2);
  }
  const double z = z_, z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z;
  return z + (z3 + z) / (4 * dof) + (5 * z5 + 16 * z3 + 3 * z) / (96 * dof * dof) +
         (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * dof * dof * dof);
}

double IncrementalPrecision::mean_rel_halfwidth(double level) const {
  const double inf = std::numeric_limits<double>::infinity();
  if (n_ < kMinCiSteps || !(m_ > 0) || !std::isfinite(m2_) || bad_) return inf;
  const double sd = std::sqrt(std::max(0.0, m2_ / (n_ - 1)));
  return t_quantile_cached(level, n_ - 1) * sd / std::sqrt(n_) * autocorrelation_widening(lag1_r(), n()) / m_;
}

double IncrementalPrecision::median_rel_halfwidth(const std::vector<double>& samples, double level) const {
  const double inf = std::numeric_limits<double>::infinity();
  const auto ci = median_interval(samples, level, autocorrelation_widening(lag1_r(), samples.size()));
  if (!ci) return inf;
  // The median by selection, not sorting: O(n).
  scratch_ = samples;
  const size_t k = scratch_.size() / 2;
  std::nth_element(scratch_.begin(), scratch_.begin() + k, scratch_.end());
  double med = scratch_[k];
  if (scratch_.size() % 2 == 0) med = (med + *std::max_element(scratch_.begin(), scratch_.begin() + k)) / 2;
  return med > 0 ? (ci->at(1) - ci->at(0)) / 2 / med : inf;
}

}  // namespace pperf
