#include "src/stats/compare_stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>

#include "src/stats/intervals.h"
#include "src/stats/stats.h"

namespace pperf {
namespace {

void require(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(std::string("compare_stats: ") + what);
}

/// Null counts of U for sample sizes (na, nb): coefficient k = number of the C(na+nb, na)
/// arrangements with U = k. Product over i = 1..m of (1 - q^(n+i)) / (1 - q^i), m <= n;
/// every partial product is a Gaussian binomial, so the division is exact. Entries stay
/// below C(na+nb, na) in magnitude: exact in int64 for na + nb <= 62.
std::vector<int64_t> u_null_counts(size_t na, size_t nb) {
  const size_t m = std::min(na, nb), n = std::max(na, nb);
  std::vector<int64_t> c(m * n + m + 1, 0);
  c[0] = 1;
  size_t deg = 0;
  for (size_t i = 1; i <= m; ++i) {
    const size_t s = n + i, top = deg + s;
    for (size_t k = top; k >= s; --k) c[k] -= c[k - s];  // * (1 - q^s)
    for (size_t k = i; k <= top; ++k) c[k] += c[k - i];  // / (1 - q^i)
    deg += n;
  }
  c.resize(m * n + 1);
  return c;
}

}  // namespace

MannWhitney mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b) {
  require(!a.empty() && !b.empty(), "mann_whitney_u needs two non-empty samples");
  const size_t na = a.size(), nb = b.size(), n = na + nb;
  std::vector<std::pair<double, bool>> pooled;  // (value, comes from a)
  pooled.reserve(n);
  for (double v : a) pooled.emplace_back(v, true);
  for (double v : b) pooled.emplace_back(v, false);
  std::sort(pooled.begin(), pooled.end(),
            [](const auto& l, const auto& r) { return l.first < r.first; });

  double rank_sum_a = 0, tie_term = 0;  // tie_term = sum over tie groups of t^3 - t
  for (size_t i = 0, j; i < n; i = j) {
    for (j = i + 1; j < n && pooled[j].first == pooled[i].first;) ++j;
    const double t = static_cast<double>(j - i), midrank = (i + 1 + j) / 2.0;
    for (size_t k = i; k < j; ++k)
      if (pooled[k].second) rank_sum_a += midrank;
    tie_term += t * t * t - t;
  }

  MannWhitney r;
  const double nab = static_cast<double>(na) * static_cast<double>(nb);
  r.u = rank_sum_a - na * (na + 1) / 2.0;
  const double u_max = std::max(r.u, nab - r.u);
  r.exact = tie_term == 0 && n <= kMannWhitneyExactMaxTotal;
  if (r.exact) {
    const std::vector<int64_t> counts = u_null_counts(na, nb);
    int64_t total = 0, tail = 0;
    for (size_t k = 0; k < counts.size(); ++k) {
      total += counts[k];
      if (static_cast<double>(k) >= u_max) tail += counts[k];
    }
    r.p_value = std::min(1.0, 2.0 * static_cast<double>(tail) / static_cast<double>(total));
  } else {
    const double nd = static_cast<double>(n);
    const double var = nab / 12.0 * ((nd + 1) - tie_term / (nd * (nd - 1)));
    if (var <= 0) {
      r.p_value = 1;  // every value equal
    } else {
      const double z = (u_max - nab / 2 - 0.5) / std::sqrt(var);
      r.p_value = std::min(
          1.0, 2.0 * boost::math::cdf(boost::math::complement(boost::math::normal(), z)));
    }
  }
  return r;
}

std::vector<double> benjamini_hochberg(const std::vector<double>& p_values) {
  const size_t m = p_values.size();
  for (double p : p_values) require(p >= 0 && p <= 1, "p-values must be in [0, 1]");
  std::vector<size_t> order(m);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t l, size_t r) { return p_values[l] < p_values[r]; });
  std::vector<double> q(m);
  double running = 1;
  for (size_t rank = m; rank >= 1; --rank) {
    const size_t i = order[rank - 1];
    running = std::min(running, p_values[i] * static_cast<double>(m) / static_cast<double>(rank));
    q[i] = running;
  }
  return q;
}

namespace {
double two_sided_t_p(double t, double dof) {
  return std::min(1.0, 2 * boost::math::cdf(boost::math::complement(boost::math::students_t(dof), std::fabs(t))));
}

double t_quantile(double confidence, double dof) {
  return boost::math::quantile(boost::math::students_t(dof), 0.5 + confidence / 2);
}

MeanChange log_change(double log_ratio, double se, double dof, double confidence) {
  MeanChange c;
  c.estimate = std::expm1(log_ratio);
  c.dof = dof;
  if (se > 0) {
    const double half = t_quantile(confidence, dof) * se;
    c.ci = {std::expm1(log_ratio - half), std::expm1(log_ratio + half)};
    c.p_value = two_sided_t_p(log_ratio / se, dof);
  } else {
    c.ci = {c.estimate, c.estimate};
    c.p_value = log_ratio == 0 ? 1 : 0;
  }
  return c;
}
}  // namespace

std::optional<MeanChange> welch_mean_change(const std::vector<double>& baseline, const std::vector<double>& candidate,
                                            double confidence) {
  require(confidence > 0 && confidence < 1, "confidence must be in (0, 1)");
  const auto b = mean_with_error(baseline), c = mean_with_error(candidate);
  if (!b || !c) return std::nullopt;
  const double vb = std::pow(b->se / b->mean, 2), vc = std::pow(c->se / c->mean, 2);
  const double dof = (vb + vc) * (vb + vc) / (vb * vb / b->dof + vc * vc / c->dof);
  return log_change(std::log(c->mean / b->mean), std::sqrt(vb + vc), dof, confidence);
}

std::optional<MeanChange> run_to_run_change(const std::vector<double>& baseline_run_means, double candidate_mean,
                                            double confidence) {
  require(confidence > 0 && confidence < 1, "confidence must be in (0, 1)");
  require(candidate_mean > 0 && std::isfinite(candidate_mean), "a run's mean must be finite and > 0");
  const size_t k = baseline_run_means.size();
  if (k < kMinBaselineRuns) return std::nullopt;
  std::vector<double> logs;
  for (double m : baseline_run_means) {
    require(m > 0 && std::isfinite(m), "a run's mean must be finite and > 0");
    logs.push_back(std::log(m));
  }
  const double kk = static_cast<double>(k);
  return log_change(std::log(candidate_mean) - mean(logs), stdev(logs) * std::sqrt(1 + 1 / kk), kk - 1, confidence);
}

ThresholdSide threshold_side(const std::array<double, 2>& change_pct_interval, double threshold_pct) {
  if (change_pct_interval[0] > threshold_pct) return ThresholdSide::above;
  if (change_pct_interval[1] < -threshold_pct) return ThresholdSide::below;
  return ThresholdSide::within;
}

}  // namespace pperf
