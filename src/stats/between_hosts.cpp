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
    case BetweenHostSource::not_included: break;
  }
  return "not_included";
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
  double own = 0, own_dof = 0;
  for (const auto& h : hosts) own += h.se * h.se / k, own_dof += h.dof;
  out.mean_host_variance = own;
  if (hosts.size() == 1) {
    const HostMean& h = hosts.front();
    out.log_mean = h.log_mean;
    out.source = external ? BetweenHostSource::history : BetweenHostSource::not_included;
    out.tau2 = external ? external->cv * external->cv : 0;
    out.variance = h.se * h.se + out.tau2;
    out.dof = satterthwaite({{h.se * h.se, h.dof}, {out.tau2, external ? double(external->hosts - 1) : kLargeDof}});
    return out;
  }
  out.source = BetweenHostSource::replicates;
  // DerSimonian-Laird: Q about the fixed-effect mean, tau^2 = max(0, (Q - (k - 1)) / c).
  double sw = 0, sw2 = 0, swy = 0;
  for (const auto& h : hosts) {
    const double w = 1 / (h.se * h.se);
    sw += w, sw2 += w * w, swy += w * h.log_mean;
  }
  const double fixed = swy / sw;
  double q = 0;
  for (const auto& h : hosts) q += (h.log_mean - fixed) * (h.log_mean - fixed) / (h.se * h.se);
  out.tau2 = std::max(0.0, (q - (k - 1)) / (sw - sw2 / sw));
  double sws = 0, swsy = 0;
  for (const auto& h : hosts) {
    const double w = 1 / (h.se * h.se + out.tau2);
    sws += w, swsy += w * h.log_mean;
  }
  out.log_mean = swsy / sws;
  double hk = 0;  // Hartung-Knapp: the hosts' own weighted scatter about the pooled mean
  for (const auto& h : hosts) hk += (h.log_mean - out.log_mean) * (h.log_mean - out.log_mean) / (h.se * h.se + out.tau2);
  hk /= (k - 1) * sws;
  out.variance = std::max(1 / sws, hk);
  // The estimate's variance is (own + tau^2) / k: the hosts' own errors have their batch means'
  // degrees of freedom, the between-host part k - 1.
  out.dof = satterthwaite({{own / k, own_dof}, {out.tau2 / k, k - 1}});
  if (hk > 1 / sws) out.dof = std::min(out.dof, k - 1);  // the scatter alone carries the interval
  return out;
}

std::array<double, 2> separate_log_ratio_interval(const PooledHosts& baseline, const PooledHosts& candidate, double confidence) {
  const double d = candidate.log_mean - baseline.log_mean;
  const double v = baseline.variance + candidate.variance;
  const double dof = satterthwaite({{baseline.variance, baseline.dof}, {candidate.variance, candidate.dof}});
  const double h = t_quantile(confidence, dof) * std::sqrt(v);
  return {d - h, d + h};
}

PooledHosts with_more_hosts(const PooledHosts& pooled, int64_t more, double tau2) {
  PooledHosts out = pooled;
  out.hosts = pooled.hosts + std::max<int64_t>(0, more);
  const auto k = static_cast<double>(out.hosts);
  out.tau2 = tau2;
  out.variance = (pooled.mean_host_variance + tau2) / k;
  // The hosts' own dof: ~ what the present hosts average each (their batch means').
  const double own_dof_each = 29;
  out.dof = satterthwaite({{pooled.mean_host_variance / k, own_dof_each * k}, {tau2 / k, k - 1}});
  out.source = BetweenHostSource::replicates;
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
