#include "src/stats/between_hosts.h"

#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "src/stats/intervals.h"

namespace pperf {

std::optional<HostMean> host_mean(const std::vector<double>& step_ms) {
  const auto m = mean_with_error(step_ms);
  if (!m || !(m->mean > 0) || !(m->se > 0)) return std::nullopt;
  return HostMean{std::log(m->mean), m->se / m->mean, m->dof};
}

std::string to_string(BetweenHostSource source) {
  switch (source) {
    case BetweenHostSource::replicates: return "replicates";
    case BetweenHostSource::history: return "history";
    case BetweenHostSource::prior: return "prior";
    case BetweenHostSource::not_included: break;
  }
  return "not_included";
}

double own_variance(const HostMean& h) {
  const double dof = std::max(h.dof, kMinOwnDof);
  return h.se * h.se * dof / (dof - 2);
}

namespace {
constexpr double kLargeDof = 1e6;

double t_quantile(double confidence, double dof) {
  if (!(dof > 0) || dof >= kLargeDof) dof = kLargeDof;
  return boost::math::quantile(boost::math::students_t(dof), 1 - (1 - confidence) / 2);
}

/// Satterthwaite's degrees of freedom of a sum of variance components, each with its own.
double satterthwaite(const std::vector<std::pair<double, double>>& components) {
  double sum = 0, denominator = 0;
  for (const auto& [v, dof] : components) {
    sum += v;
    if (v > 0) denominator += v * v / std::max(dof, 1.0);
  }
  return denominator > 0 ? sum * sum / denominator : kLargeDof;
}
}  // namespace

PooledHosts pool_hosts(const std::vector<HostMean>& hosts, const std::optional<ExternalSpread>& external) {
  if (hosts.empty()) throw std::invalid_argument("pool_hosts: no hosts");
  for (const auto& h : hosts)
    if (!(h.se > 0) || !std::isfinite(h.log_mean)) throw std::invalid_argument("pool_hosts: a host without spread");
  PooledHosts out;
  const auto k = static_cast<double>(hosts.size());
  out.hosts = static_cast<int64_t>(hosts.size());
  if (hosts.size() == 1) {
    const HostMean& h = hosts.front();
    out.mean_host_variance = h.se * h.se;
    out.log_mean = h.log_mean;
    if (!external) {
      out.source = BetweenHostSource::not_included;
      out.variance = h.se * h.se;
      out.dof = h.dof;
      return out;
    }
    out.source = BetweenHostSource::history;
    out.tau2 = external->cv * external->cv;
    const double beyond = std::max(0.0, h.se * h.se - external->own);  // its own error beyond theirs
    out.variance = external->scatter + beyond;
    out.dof = satterthwaite({{external->scatter, double(external->hosts - 1)}, {beyond, h.dof}});
    return out;
  }
  out.source = BetweenHostSource::replicates;
  // The hosts measured one configuration on one type: their own variances estimate one quantity,
  // each from a few batch means (5 dof at 60 steps). Weights from each host's own would be
  // noise that Hartung-Knapp's scatter does not see (A/A 5.3-7.2 % at 60 steps, 5 hosts a side):
  // every host is weighted by their average, v (each as own_variance: the dof floor).
  double v = 0, mean = 0;
  for (const auto& h : hosts) v += own_variance(h) / k, mean += h.log_mean / k;
  out.mean_host_variance = v;
  double scatter = 0;  // the sample variance of the hosts' log means
  for (const auto& h : hosts) scatter += (h.log_mean - mean) * (h.log_mean - mean) / (k - 1);
  // With w = 1 / v for every host: DerSimonian-Laird's Q = (k - 1) scatter / v and c = (k - 1) / v,
  // so tau^2 = max(0, scatter - v); w* = 1 / (v + tau^2), the pooled mean the hosts' plain mean,
  // 1 / sum w* = (v + tau^2) / k and Hartung-Knapp's scatter sum w* (y - mean)^2 / ((k - 1) sum w*)
  // = scatter / k. Roever, Knapp and Friede (2015): the larger of the two, at t(k - 1) always,
  // whichever is larger and whatever tau^2 (0 included).
  out.tau2 = std::max(0.0, scatter - v);
  out.log_mean = mean;
  out.variance = std::max((v + out.tau2) / k, scatter / k);
  out.dof = k - 1;
  return out;
}

PooledHosts with_prior(const PooledHosts& pooled, double prior_cv) {
  if (pooled.source != BetweenHostSource::not_included) return pooled;
  PooledHosts out = pooled;
  out.source = BetweenHostSource::prior;
  out.tau2 = prior_cv * prior_cv;
  out.variance = pooled.variance + out.tau2;
  out.dof = satterthwaite({{pooled.variance, pooled.dof}, {out.tau2, kLargeDof}});
  return out;
}

std::array<double, 2> separate_log_ratio_interval(const PooledHosts& baseline, const PooledHosts& candidate, double confidence) {
  const double d = candidate.log_mean - baseline.log_mean;
  const double v = baseline.variance + candidate.variance;
  const double dof = satterthwaite({{baseline.variance, baseline.dof}, {candidate.variance, candidate.dof}});
  const double h = t_quantile(confidence, dof) * std::sqrt(v);
  return {d - h, d + h};
}

std::optional<ExternalSpread> external_spread(const std::vector<HostMean>& others) {
  if (static_cast<int64_t>(others.size()) < kMinHistoryHosts) return std::nullopt;
  const auto k = static_cast<double>(others.size());
  double mean = 0, own = 0;
  for (const auto& h : others) mean += h.log_mean / k, own += h.se * h.se / k;
  double scatter = 0;
  for (const auto& h : others) scatter += (h.log_mean - mean) * (h.log_mean - mean) / (k - 1);
  return ExternalSpread{std::sqrt(pool_hosts(others).tau2), static_cast<int64_t>(others.size()), scatter, own};
}

std::array<double, 2> decision_log_ratio_interval(const PooledHosts& baseline, const PooledHosts& candidate,
                                                  double prior_cv, double confidence) {
  const auto own = separate_log_ratio_interval(baseline, candidate, confidence);
  const auto with = separate_log_ratio_interval(with_prior(baseline, prior_cv), with_prior(candidate, prior_cv), confidence);
  return {std::min(own[0], with[0]), std::max(own[1], with[1])};
}

PooledHosts with_more_hosts(const PooledHosts& pooled, int64_t more, double tau2) {
  PooledHosts out = pooled;
  out.hosts = pooled.hosts + std::max<int64_t>(0, more);
  const auto k = static_cast<double>(out.hosts);
  out.tau2 = tau2;
  out.variance = (pooled.mean_host_variance + tau2) / k;
  // pool_hosts' t(k - 1); one host: its own error's dof with tau^2 as if known.
  out.dof = k > 1 ? k - 1 : satterthwaite({{pooled.mean_host_variance, pooled.dof}, {tau2, kLargeDof}});
  out.source = out.hosts > 1 ? BetweenHostSource::replicates : pooled.source;
  return out;
}

std::optional<MoreHosts> more_hosts_to_decide(const PooledHosts& baseline, const PooledHosts& candidate, double tau2,
                                              PriceRatio price_ratio, const DecisionSettings& settings, int64_t most) {
  for (int64_t total = 1; total <= 2 * most; ++total) {
    std::optional<MoreHosts> best;
    double best_width = std::numeric_limits<double>::infinity();
    for (int64_t b = std::max<int64_t>(0, total - most); b <= std::min(total, most); ++b) {
      const PooledHosts pb = with_more_hosts(baseline, b, tau2), pc = with_more_hosts(candidate, total - b, tau2);
      const auto log_ratio = separate_log_ratio_interval(pb, pc, settings.confidence);
      const auto bounds = improvement_bounds(log_ratio, price_ratio);
      if (verdict_of(bounds, settings.equivalence_pct) == CostVerdict::undecided) continue;
      if (log_ratio[1] - log_ratio[0] < best_width) best_width = log_ratio[1] - log_ratio[0], best = MoreHosts{b, total - b};
    }
    if (best) return best;
  }
  return std::nullopt;
}

}  // namespace pperf
