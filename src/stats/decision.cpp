#include "src/stats/decision.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>

#include "src/stats/intervals.h"
#include "src/stats/stats.h"

namespace pperf {

std::array<double, 2> improvement_bounds(std::array<double, 2> log_time_ratio, PriceRatio price_ratio) {
  return {(1 - price_ratio[1] * std::exp(log_time_ratio[1])) * 100, (1 - price_ratio[0] * std::exp(log_time_ratio[0])) * 100};
}

std::string verdict_phrase(CostVerdict verdict, double equivalence_pct) {
  switch (verdict) {
    case CostVerdict::cheaper: return "cheaper per step";
    case CostVerdict::dearer: return "dearer per step";
    case CostVerdict::equivalent: return fmt::format("the same cost per step within ±{:g} %", equivalence_pct);
    case CostVerdict::undecided: break;
  }
  return "undecided";
}

CostVerdict verdict_of(const std::array<double, 2>& improvement_pct, double equivalence_pct) {
  if (improvement_pct[0] >= -equivalence_pct && improvement_pct[1] <= equivalence_pct) return CostVerdict::equivalent;
  if (improvement_pct[0] > 0) return CostVerdict::cheaper;
  if (improvement_pct[1] < 0) return CostVerdict::dearer;
  return CostVerdict::undecided;
}

double confidence_sequence_halfwidth(double sd, size_t rounds, const DecisionSettings& settings) {
  const double alpha = 1 - settings.confidence, t = static_cast<double>(rounds);
  // The mixture's spread, tuned so the boundary is tightest at planned_rounds.
  const double rho2 = (-2 * std::log(alpha) + std::log(-2 * std::log(alpha) + 1)) / settings.planned_rounds;
  const double v = t * rho2 + 1;
  // The boundary assumes the variance known; with it estimated from few rounds, widen by
  // Student's t over the normal quantile (1.21 at 8 rounds, 1.03 at 30).
  const double small_sample = boost::math::quantile(boost::math::students_t(t - 1), 1 - alpha / 2) /
                              boost::math::quantile(boost::math::normal(), 1 - alpha / 2);
  return small_sample * sd * std::sqrt(2 * v / (t * t * rho2) * std::log(std::sqrt(v) / alpha));
}

double round_correlation_widening(const std::vector<double>& terms) {
  const size_t t = terms.size();
  if (t < 3) return 1;
  const double m = mean(terms);
  double num = 0, den = 0;
  for (size_t j = 0; j < t; ++j) {
    den += (terms[j] - m) * (terms[j] - m);
    if (j > 0) num += (terms[j] - m) * (terms[j - 1] - m);
  }
  if (!(den > 0)) return 1;
  // One standard error of r (1/sqrt(t)) above its bias-corrected estimate: a few rounds say
  // little about their correlation, and too narrow a sequence errs where too wide one waits.
  const double r = std::clamp(num / den + (1 + 3 * num / den) / static_cast<double>(t) + 0.5 / std::sqrt(static_cast<double>(t)), 0.0, 0.9);
  return std::sqrt((1 + r) / (1 - r));
}

namespace {
/// log(mean c / mean b) and its linearised per-round terms c_j / mc - b_j / mb (a drift both
/// sides share within a round cancels), over the first t paired rounds.
struct PairedRounds {
  size_t t = 0;
  double log_ratio = 0;
  std::vector<double> psi;
};
PairedRounds paired(const std::vector<double>& baseline_round_ms, const std::vector<double>& candidate_round_ms) {
  PairedRounds p;
  p.t = std::min(baseline_round_ms.size(), candidate_round_ms.size());
  if (p.t == 0) return p;
  const std::vector<double> b(baseline_round_ms.begin(), baseline_round_ms.begin() + p.t),
      c(candidate_round_ms.begin(), candidate_round_ms.begin() + p.t);
  const double mb = mean(b), mc = mean(c);
  p.log_ratio = std::log(mc / mb);
  for (size_t j = 0; j < p.t; ++j) p.psi.push_back(c[j] / mc - b[j] / mb);
  return p;
}

std::string percent(double x) { return fmt::format("{:+.1f} %", x); }

/// The anytime half-width on the log ratio; nullopt without spread.
std::optional<double> anytime_halfwidth(const PairedRounds& p, const DecisionSettings& settings) {
  if (p.t < 2) return std::nullopt;
  const double sd = stdev(p.psi);
  if (!(sd > 0) || !std::isfinite(sd)) return std::nullopt;
  return confidence_sequence_halfwidth(sd, p.t, settings) * round_correlation_widening(p.psi);
}

std::string reason_of(CostVerdict v, const std::array<double, 2>& b, double eq) {
  switch (v) {
    case CostVerdict::equivalent:
      return fmt::format("the improvement lies within ±{:g} % ({} to {})", eq, percent(b[0]), percent(b[1]));
    case CostVerdict::cheaper:
      return fmt::format("cheaper per step by {} to {}", percent(b[0]), percent(b[1]));
    case CostVerdict::dearer:
      return fmt::format("dearer per step: improvement {} to {}", percent(b[0]), percent(b[1]));
    case CostVerdict::undecided:
      break;
  }
  return fmt::format("the improvement's interval {} to {} includes 0 and leaves ±{:g} %", percent(b[0]), percent(b[1]), eq);
}
}  // namespace

Decision decide_interleaved(const std::vector<double>& baseline_round_ms, const std::vector<double>& candidate_round_ms,
                            PriceRatio price_ratio, const DecisionSettings& settings, double seconds_per_round) {
  Decision d;
  d.confidence = settings.confidence;
  d.equivalence_pct = settings.equivalence_pct;
  d.method = "confidence sequence over paired rounds";
  const PairedRounds p = paired(baseline_round_ms, candidate_round_ms);
  const size_t t = p.t;
  d.looks = static_cast<int64_t>(t);
  const std::optional<double> half = anytime_halfwidth(p, settings);
  if (t >= 2 && !half) {
    d.reason = fmt::format("{} paired rounds without spread (every round's mean ratio the same: a timer too coarse to "
                           "tell steps apart, or constant step times): no interval, no verdict",
                           t);
    return d;
  }
  const double log_ratio = p.log_ratio;
  std::array<double, 2> bounds{};
  if (half) {
    bounds = improvement_bounds({log_ratio - *half, log_ratio + *half}, price_ratio);
    d.improvement_pct_bounds = bounds;
  }
  if (t < settings.min_rounds) {
    d.reason = fmt::format("{} paired rounds: the first look is at {}", t, settings.min_rounds);
    return d;
  }
  d.verdict = verdict_of(bounds, settings.equivalence_pct);
  d.reason = reason_of(d.verdict, bounds, settings.equivalence_pct);
  if (price_ratio[0] != price_ratio[1])
    d.reason += fmt::format("; at both ends of the price ratio {:.4g} to {:.4g}", price_ratio[0], price_ratio[1]);
  if (d.verdict == CostVerdict::undecided && seconds_per_round > 0) {
    if (const auto r = rounds_to_decide(baseline_round_ms, candidate_round_ms, price_ratio, settings)) {
      d.seconds_to_decide = r->median * seconds_per_round;
      d.reason += fmt::format("; about {:.0f} rounds in all ({:.0f} s of measuring per configuration) would likely decide "
                              "it, 80 % of the time within {:.0f} to {}",
                              r->median, *d.seconds_to_decide, r->low,
                              std::isfinite(r->high) ? fmt::format("{:.0f} rounds", r->high) : std::string("never"));
    }
  }
  return d;
}

namespace {
/// The least round count t' >= from at which the sequence's half-width (same sd and widening)
/// is at most `needed`; infinity when none up to kMaxRounds.
double rounds_until(double sd, double widening, double needed, size_t from, const DecisionSettings& settings) {
  constexpr size_t kMaxRounds = 100000;
  const auto fits = [&](size_t t) { return confidence_sequence_halfwidth(sd, t, settings) * widening <= needed; };
  if (!(needed > 0)) return std::numeric_limits<double>::infinity();
  size_t hi = std::max<size_t>(from, 2);
  while (!fits(hi)) {
    if (hi >= kMaxRounds) return std::numeric_limits<double>::infinity();
    hi = std::min(kMaxRounds, hi * 2);
  }
  size_t lo = std::max<size_t>(from, 2);
  while (lo < hi) {  // the half-width falls with t from a few rounds on
    const size_t mid = (lo + hi) / 2;
    if (fits(mid))
      hi = mid;
    else
      lo = mid + 1;
  }
  return static_cast<double>(hi);
}
}  // namespace

std::optional<RoundsToDecide> rounds_to_decide(const std::vector<double>& baseline_round_ms,
                                               const std::vector<double>& candidate_round_ms, PriceRatio price_ratio,
                                               const DecisionSettings& settings) {
  const PairedRounds p = paired(baseline_round_ms, candidate_round_ms);
  if (p.t < 2) return std::nullopt;
  const double sd = stdev(p.psi);
  if (!(sd > 0) || !std::isfinite(sd)) return std::nullopt;
  const double widening = round_correlation_widening(p.psi);
  // The distance from the log ratio to the nearest boundary that would decide it: break-even at
  // the dearer end of the price range (cheaper) or the cheaper end (dearer), or, for an
  // estimate inside the margin, the margin's nearer edge.
  const double eq = settings.equivalence_pct / 100;
  const auto distance = [&](double log_ratio) {
    const double cheaper = -std::log(price_ratio[1]) - log_ratio, dearer = log_ratio + std::log(price_ratio[0]);
    double need = std::max(cheaper, dearer);  // > 0 on one side of the break-even band
    const double lo_edge = std::log((1 - eq) / price_ratio[0]), hi_edge = std::log((1 + eq) / price_ratio[1]);
    if (log_ratio > lo_edge && log_ratio < hi_edge) need = std::max(need, std::min(log_ratio - lo_edge, hi_edge - log_ratio));
    return need;
  };
  // The effect is uncertain: the true log ratio drawn as N(estimate, se^2) at 40 quantiles,
  // each with the rounds that would decide it; their median and 10th..90th percentiles.
  const double se = sd * widening / std::sqrt(static_cast<double>(p.t));
  const size_t from = std::max(p.t + 1, settings.min_rounds);
  constexpr int kDraws = 40;
  std::vector<double> need;
  for (int i = 0; i < kDraws; ++i) {
    const double z = boost::math::quantile(boost::math::normal(), (i + 0.5) / kDraws);
    need.push_back(rounds_until(sd, widening, distance(p.log_ratio + z * se), from, settings));
  }
  std::sort(need.begin(), need.end());
  RoundsToDecide r;
  r.median = (need[kDraws / 2 - 1] + need[kDraws / 2]) / 2;
  r.low = need[kDraws / 10 - 1 + 1];      // the 10th percentile of the 40 (the 5th smallest)
  r.high = need[kDraws - kDraws / 10 - 1];  // the 90th (the 36th)
  if (!std::isfinite(r.median)) return std::nullopt;
  return r;
}

std::optional<std::array<double, 2>> anytime_time_ratio_interval(const std::vector<double>& baseline_round_ms,
                                                                 const std::vector<double>& candidate_round_ms,
                                                                 const DecisionSettings& settings) {
  const PairedRounds p = paired(baseline_round_ms, candidate_round_ms);
  const std::optional<double> half = anytime_halfwidth(p, settings);
  if (!half) return std::nullopt;
  return std::array<double, 2>{std::exp(p.log_ratio - *half), std::exp(p.log_ratio + *half)};
}

std::optional<std::array<double, 2>> paired_time_ratio_interval(const std::vector<double>& baseline_round_ms,
                                                                const std::vector<double>& candidate_round_ms,
                                                                double confidence) {
  const PairedRounds p = paired(baseline_round_ms, candidate_round_ms);
  if (p.t < 2) return std::nullopt;
  const double sd = stdev(p.psi);
  if (!(sd > 0)) return std::nullopt;
  const double t = boost::math::quantile(boost::math::students_t(static_cast<double>(p.t) - 1), 0.5 + confidence / 2);
  const double half = t * sd / std::sqrt(static_cast<double>(p.t));
  return std::array<double, 2>{std::exp(p.log_ratio - half), std::exp(p.log_ratio + half)};
}

Decision decide_fixed(const std::optional<std::array<double, 2>>& time_ratio_ci, PriceRatio price_ratio,
                      const DecisionSettings& settings, bool given) {
  Decision d;
  d.confidence = settings.confidence;
  d.equivalence_pct = settings.equivalence_pct;
  d.method = given ? "given step times" : "fixed-sample interval";
  d.looks = 1;
  if (!time_ratio_ci || !((*time_ratio_ci)[0] > 0)) {
    d.reason = "no interval for the ratio of mean step times (a side has fewer steps than an interval needs)";
    return d;
  }
  const auto bounds = improvement_bounds({std::log((*time_ratio_ci)[0]), std::log((*time_ratio_ci)[1])}, price_ratio);
  d.improvement_pct_bounds = bounds;
  d.verdict = verdict_of(bounds, settings.equivalence_pct);
  d.reason = reason_of(d.verdict, bounds, settings.equivalence_pct) +
             (price_ratio[0] != price_ratio[1]
                  ? fmt::format("; at both ends of the price ratio {:.4g} to {:.4g}", price_ratio[0], price_ratio[1])
                  : std::string()) +
             (given ? "; step times given, not measured: the figures are taken as exact"
                    : "; measured one after the other: a drift of the host between the two is not cancelled");
  return d;
}

}  // namespace pperf
