#include "src/stats/decision.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <tuple>
#include <random>

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

namespace {
/// The normal mixture's boundary on the standardised sum (|S_t| / sqrt(t) for unit variance)
/// after t rounds: Robbins' sequence, tuned so the boundary is tightest at planned_rounds.
double mixture_z(double t, double alpha, double planned_rounds) {
  const double rho2 = (-2 * std::log(alpha) + std::log(-2 * std::log(alpha) + 1)) / planned_rounds;
  const double v = t * rho2 + 1;
  return std::sqrt(2 * v / (t * rho2) * std::log(std::sqrt(v) / alpha));
}

/// P(|S_t| >= k z(t) sqrt(t) for some t in [m, h]) for a unit-variance Gaussian random walk:
/// the density of S_t kept on a grid (step 0.1) over the region not yet crossed, convolved with
/// the increment's density (trapezoid rule, to +-8 sd) round by round.
double crossing_probability(double k, size_t m, size_t h, double alpha, double planned_rounds) {
  constexpr double kStep = 0.1, kPi = 3.141592653589793;
  const int kernel_half = 80;
  std::vector<double> kernel(2 * kernel_half + 1);
  for (int i = -kernel_half; i <= kernel_half; ++i)
    kernel[i + kernel_half] = kStep * std::exp(-0.5 * (i * kStep) * (i * kStep)) / std::sqrt(2 * kPi);
  // Before the first look S_{m-1} ~ N(0, m - 1) (a point mass at 0 when m = 1).
  const double var0 = static_cast<double>(m - 1);
  // The cell (width kStep, centred on i kStep) holding this look's boundary, and the share of it
  // inside the boundary.
  const auto boundary = [&](size_t t) {
    const double b = k * mixture_z(static_cast<double>(t), alpha, planned_rounds) * std::sqrt(static_cast<double>(t)) / kStep;
    const int cell = static_cast<int>(std::ceil(b - 0.5));
    return std::make_pair(cell, b - (cell - 0.5));
  };
  int w = var0 > 0 ? static_cast<int>(8 * std::sqrt(var0) / kStep) + 1 : 0;
  std::vector<double> f(2 * w + 1);
  if (var0 > 0)
    for (int i = -w; i <= w; ++i) f[i + w] = kStep * std::exp(-0.5 * (i * kStep) * (i * kStep) / var0) / std::sqrt(2 * kPi * var0);
  else
    f[0] = 1;
  double crossed = 0;
  for (size_t t = m; t <= h; ++t) {
    // One more round: convolve, onto the cells inside this look's boundary (the rest crossed).
    const auto [nw, inside] = boundary(t);
    std::vector<double> g(2 * nw + 1, 0);
    double total = 0;
    for (int i = -w; i <= w; ++i) {
      const double fi = f[i + w];
      if (fi < 1e-300) continue;
      total += fi;
      const int lo = std::max(-kernel_half, -nw - i), hi = std::min(kernel_half, nw - i);
      for (int j = lo; j <= hi; ++j) g[i + j + nw] += fi * kernel[j + kernel_half];
    }
    // The cells the boundary falls in keep the share inside it.
    g.front() *= inside, g.back() *= inside;
    double kept = 0;
    for (double x : g) kept += x;
    crossed += total - kept;
    f.swap(g);
    w = nw;
  }
  return crossed;
}
}  // namespace

/// The share of the error the narrowed sequence spends on a walk with known variance and
/// independent rounds; the rest is left to the rounds' estimated variance and correlation (with
/// the whole of it, A/A false decisions reached 6-8 % for AR(1) r = 0.8 at 20 to 200 rounds,
/// docs/statistics.md).
constexpr double kHorizonErrorShare = 0.4;

size_t budget_rounds(int64_t max_steps, int64_t round_steps) {
  if (max_steps <= 0 || round_steps <= 0) return 0;
  return static_cast<size_t>((max_steps + round_steps - 1) / round_steps);
}

DecisionSettings settings_for_turns(DecisionSettings settings, int64_t max_steps, int64_t round_steps) {
  settings.horizon_rounds = budget_rounds(max_steps, round_steps);
  if (settings.early_look_rounds > 0 && round_steps > 0)
    settings.early_look_rounds = std::max<size_t>(
        settings.early_look_rounds, static_cast<size_t>((static_cast<int64_t>(kMinCiSteps) + round_steps - 1) / round_steps));
  return settings;
}

namespace {
size_t early_looks(const DecisionSettings& s) {
  const size_t first = std::max<size_t>(2, s.early_look_rounds);
  return s.early_look_rounds > 0 && first < s.min_rounds ? s.min_rounds - first : 0;
}
}  // namespace

double sequence_alpha(const DecisionSettings& settings) {
  const double alpha = 1 - settings.confidence;
  return early_looks(settings) ? alpha * (1 - settings.early_error_share) : alpha;
}

double early_look_confidence(const DecisionSettings& settings) {
  const size_t looks = early_looks(settings);
  return looks ? 1 - (1 - settings.confidence) * settings.early_error_share / static_cast<double>(looks) : 0;
}

double horizon_scale(const DecisionSettings& settings) {
  const size_t m = std::max<size_t>(2, settings.min_rounds), h = settings.horizon_rounds;
  if (h <= m || h > kMaxHorizonRounds) return 1;
  const double alpha = sequence_alpha(settings);
  static std::mutex lock;
  static std::map<std::tuple<size_t, size_t, double, double>, double> cache;
  const auto key = std::make_tuple(m, h, alpha, settings.planned_rounds);
  {
    const std::lock_guard<std::mutex> hold(lock);
    if (const auto it = cache.find(key); it != cache.end()) return it->second;
  }
  // Crossing is less likely the wider the boundary: bisect k in [0.3, 1] for the share
  // kHorizonErrorShare of alpha (1 when the endless sequence already spends less by the horizon).
  double lo = 0.3, hi = 1;
  if (crossing_probability(1, m, h, alpha, settings.planned_rounds) < kHorizonErrorShare * alpha)
    while (hi - lo > 1e-4) {
      const double k = (lo + hi) / 2;
      (crossing_probability(k, m, h, alpha, settings.planned_rounds) > kHorizonErrorShare * alpha ? lo : hi) = k;
    }
  const std::lock_guard<std::mutex> hold(lock);
  return cache[key] = hi;
}

double confidence_sequence_halfwidth(double sd, size_t rounds, const DecisionSettings& settings) {
  const double alpha = sequence_alpha(settings), t = static_cast<double>(rounds);
  const double scale = rounds <= settings.horizon_rounds ? horizon_scale(settings) : 1.0;
  // The boundary assumes the variance known; with it estimated from few rounds, widen by
  // Student's t over the normal quantile (1.21 at 8 rounds, 1.03 at 30).
  const double small_sample = boost::math::quantile(boost::math::students_t(t - 1), 1 - alpha / 2) /
                              boost::math::quantile(boost::math::normal(), 1 - alpha / 2);
  return scale * small_sample * sd * mixture_z(t, alpha, settings.planned_rounds) / std::sqrt(t);
}

namespace {
/// The lag-1 correlation the widening uses, from the terms' own lag-1 estimate `lag1` and
/// variance `variance` over `t` rounds and, when known, the steps' (round_correlation_widening
/// says the rule).
double used_correlation(double lag1, double variance, double t, const std::optional<StepImplied>& steps) {
  const double corrected = lag1 + (1 + 3 * lag1) / t, se = 1 / std::sqrt(t);
  const double rounds_rule = corrected + 0.5 * se;
  if (!steps || corrected > steps->lag1 + kCorrelationGuardZ * se) return std::clamp(rounds_rule, 0.0, 0.9);
  // The share e of the terms' variance the steps leave unexplained (their variance taken
  // kUnexplainedZ standard errors of its log, sqrt(2 / (t - 1)), above its estimate): the terms'
  // correlation is (1 - e) times the steps' plus e times that of the rest, which the rounds'
  // rule estimates (taken as at least 0, at most 1).
  const double excess = std::exp(kUnexplainedZ * std::sqrt(2 / (t - 1)));
  const double e = variance > 0 ? std::clamp(1 - steps->variance / (variance * excess), 0.0, 1.0) : 0;
  const double explained = (1 - e) * steps->lag1;
  return std::clamp(std::clamp(rounds_rule, explained, explained + e), 0.0, 0.9);
}
}  // namespace

double round_correlation_widening(const std::vector<double>& terms, const std::optional<StepImplied>& steps) {
  const size_t t = terms.size();
  if (t < 3) return 1;
  const double m = mean(terms);
  double num = 0, den = 0;
  for (size_t j = 0; j < t; ++j) {
    den += (terms[j] - m) * (terms[j] - m);
    if (j > 0) num += (terms[j] - m) * (terms[j - 1] - m);
  }
  if (!(den > 0)) return 1;
  const double r = used_correlation(num / den, den / static_cast<double>(t - 1), static_cast<double>(t), steps);
  return std::sqrt((1 + r) / (1 - r));
}

std::vector<double> RoundSteps::round_means() const { return pperf::round_means(step_ms, round_steps); }

namespace {
/// For unit-variance AR(1) steps with lag-1 correlation rho, n to a round: the expectations of
/// the sums over one round of d_i d_i+1 and of d_i^2 (d: the steps' deviations from their
/// round's mean), and the round mean's variance times n^2 and its lag-1 covariance with the next
/// round's (gap un-timed steps between) times n^2.
struct Ar1Round {
  double lag_sum = 0, square_sum = 0, mean_var = 0, next_cov = 0;
};
Ar1Round ar1_round(double rho, size_t n, int64_t gap) {
  std::vector<double> c(n);  // rho^k
  for (size_t k = 0; k < n; ++k) c[k] = std::pow(rho, static_cast<double>(k));
  // E[d_i d_k] = C_ik - a_i - a_k + g, a_i the mean of row i of C, g the grand mean.
  std::vector<double> a(n, 0);
  double g = 0, ends = 0;
  for (size_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < n; ++k) a[i] += c[i > k ? i - k : k - i];
    g += a[i];
    a[i] /= static_cast<double>(n);
    ends += c[i];
  }
  Ar1Round r;
  r.mean_var = g;
  g /= static_cast<double>(n * n);
  for (size_t i = 0; i < n; ++i) {
    r.square_sum += 1 - 2 * a[i] + g;
    if (i + 1 < n) r.lag_sum += c[1] - a[i] - a[i + 1] + g;
  }
  r.next_cov = std::pow(rho, static_cast<double>(gap + 1)) * ends * ends;
  return r;
}

/// One side's step-level fit over its first `rounds` rounds: rho and its round means' relative
/// variance (x n^2) and lag-1 covariance (x n^2) under AR(1); nullopt without spread.
std::optional<Ar1Round> fit_side(const RoundSteps& side, size_t rounds) {
  const size_t n = static_cast<size_t>(side.round_steps);
  double total = 0;
  for (size_t i = 0; i < rounds * n; ++i) total += side.step_ms[i];
  const double m = total / static_cast<double>(rounds * n);
  if (!(m > 0)) return std::nullopt;
  double lag = 0, square = 0;
  for (size_t j = 0; j < rounds; ++j) {
    const double* x = side.step_ms.data() + j * n;
    double rm = 0;
    for (size_t i = 0; i < n; ++i) rm += x[i];
    rm /= static_cast<double>(n);
    for (size_t i = 0; i < n; ++i) {
      const double d = (x[i] - rm) / m;
      square += d * d;
      if (i + 1 < n) lag += d * (x[i + 1] - rm) / m;
    }
  }
  if (!(square > 0) || !std::isfinite(square)) return std::nullopt;
  // The pooled ratio's expectation rises with rho: bisect for the rho it matches.
  const double observed = lag / square;
  const auto ratio = [&](double rho) {
    const Ar1Round e = ar1_round(rho, n, kAssumedGapSteps);
    return e.lag_sum / e.square_sum;
  };
  double lo = 0, hi = 0.99;
  if (observed <= ratio(lo)) hi = 0;
  else if (observed >= ratio(hi)) lo = hi;
  while (hi - lo > 1e-6) {
    const double mid = (lo + hi) / 2;
    (ratio(mid) < observed ? lo : hi) = mid;
  }
  Ar1Round fit = ar1_round(hi, n, kAssumedGapSteps);
  // The steps' relative variance, from the deviations' sum of squares and its expectation.
  const double step_var = square / (static_cast<double>(rounds) * fit.square_sum);
  fit.mean_var *= step_var, fit.next_cov *= step_var;
  return fit;
}
}  // namespace

std::optional<StepImplied> step_implied(const RoundSteps& baseline, const RoundSteps& candidate, size_t rounds) {
  if (rounds < 2 || baseline.round_steps < 3 || candidate.round_steps < 3) return std::nullopt;
  for (const RoundSteps* side : {&baseline, &candidate})
    if (side->step_ms.size() < rounds * static_cast<size_t>(side->round_steps)) return std::nullopt;
  const auto b = fit_side(baseline, rounds), c = fit_side(candidate, rounds);
  if (!b || !c) return std::nullopt;
  // The terms c_j / mc - b_j / mb: the sides' covariances over their variances, each over n^2.
  const double nb = static_cast<double>(baseline.round_steps), nc = static_cast<double>(candidate.round_steps);
  const double var = b->mean_var / (nb * nb) + c->mean_var / (nc * nc);
  if (!(var > 0)) return std::nullopt;
  return StepImplied{(b->next_cov / (nb * nb) + c->next_cov / (nc * nc)) / var, var};
}

namespace {
/// log(mean c / mean b) and its linearised per-round terms c_j / mc - b_j / mb (a drift both
/// sides share within a round cancels), over the first t paired rounds.
struct PairedRounds {
  size_t t = 0;
  double log_ratio = 0;
  std::vector<double> psi;
  double resolution = 0;  // the terms' spread the timer can tell from none (kTimerResolutionMs over the smaller mean)
  std::optional<StepImplied> steps;  // when the steps are known
};
PairedRounds paired(const std::vector<double>& baseline_round_ms, const std::vector<double>& candidate_round_ms) {
  PairedRounds p;
  p.t = std::min(baseline_round_ms.size(), candidate_round_ms.size());
  if (p.t == 0) return p;
  const std::vector<double> b(baseline_round_ms.begin(), baseline_round_ms.begin() + p.t),
      c(candidate_round_ms.begin(), candidate_round_ms.begin() + p.t);
  const double mb = mean(b), mc = mean(c);
  p.log_ratio = std::log(mc / mb);
  p.resolution = kTimerResolutionMs / std::min(mb, mc);
  for (size_t j = 0; j < p.t; ++j) p.psi.push_back(c[j] / mc - b[j] / mb);
  return p;
}

PairedRounds paired(const RoundSteps& baseline, const RoundSteps& candidate) {
  PairedRounds p = paired(baseline.round_means(), candidate.round_means());
  p.steps = step_implied(baseline, candidate, p.t);
  return p;
}

std::string percent(double x) { return fmt::format("{:+.1f} %", x); }

/// The anytime half-width on the log ratio; nullopt without spread.
std::optional<double> anytime_halfwidth(const PairedRounds& p, const DecisionSettings& settings) {
  if (p.t < 2) return std::nullopt;
  const double sd = stdev(p.psi);
  // Spread below what the timer resolves is none: a candidate whose every round is exactly 0.95x
  // the baseline's leaves rounding error (~1e-17), which must not read as certainty.
  if (!(sd > p.resolution) || !std::isfinite(sd)) return std::nullopt;
  return confidence_sequence_halfwidth(sd, p.t, settings) * round_correlation_widening(p.psi, p.steps);
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

namespace {
std::optional<RoundsToDecide> predict(const PairedRounds& p, const std::vector<double>& baseline_round_ms,
                                      const std::vector<double>& candidate_round_ms, PriceRatio price_ratio,
                                      const DecisionSettings& settings);

/// decide_interleaved on paired rounds `p` of these round means.
Decision decide(const PairedRounds& p, const std::vector<double>& baseline_round_ms,
                const std::vector<double>& candidate_round_ms, PriceRatio price_ratio, const DecisionSettings& settings,
                double seconds_per_round) {
  Decision d;
  d.confidence = settings.confidence;
  d.equivalence_pct = settings.equivalence_pct;
  d.method = "confidence sequence over paired rounds";
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
  if (t < settings.min_rounds && half && early_looks(settings) && t >= std::max<size_t>(2, settings.early_look_rounds)) {
    // An early look: a fixed-sample t interval at its small share of the error, widened for the
    // rounds' correlation (without it, AR(1) r = 0.8 steps made the early looks' false decisions
    // 0.8-1.0 % against their 0.5 %); only a difference it clears (cheaper or dearer) decides,
    // else the run waits for the sequence.
    const double level = early_look_confidence(settings);
    const double q = boost::math::quantile(boost::math::students_t(static_cast<double>(t) - 1), 0.5 + level / 2);
    const double eh = q * stdev(p.psi) / std::sqrt(static_cast<double>(t)) * round_correlation_widening(p.psi, p.steps);
    const auto early = improvement_bounds({log_ratio - eh, log_ratio + eh}, price_ratio);
    const CostVerdict v = verdict_of(early, settings.equivalence_pct);
    if (v == CostVerdict::cheaper || v == CostVerdict::dearer) {
      d.improvement_pct_bounds = early;
      d.verdict = v;
      d.reason = reason_of(v, early, settings.equivalence_pct) +
                 fmt::format("; an early look at {} paired rounds (Student t at {:.2f} %)", t, level * 100);
      if (price_ratio[0] != price_ratio[1])
        d.reason += fmt::format("; at both ends of the price ratio {:.4g} to {:.4g}", price_ratio[0], price_ratio[1]);
      return d;
    }
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
    const auto r = predict(p, baseline_round_ms, candidate_round_ms, price_ratio, settings);
    const auto rounds = [](double x) { return std::isfinite(x) ? fmt::format("{:.0f} rounds", x) : std::string("never"); };
    if (r && std::isfinite(r->median)) {
      d.seconds_to_decide = r->median * seconds_per_round;
      d.reason += fmt::format("; about {:.0f} rounds in all ({:.0f} s of measuring per configuration) would likely decide "
                              "it, 80 % of the time within {:.0f} to {}",
                              r->median, *d.seconds_to_decide, r->low, rounds(r->high));
    } else if (r) {
      d.reason += fmt::format("; likely undecided even after {} rounds", kRoundsToDecideHorizon) +
                  (std::isfinite(r->low) ? fmt::format(" (1 chance in 10 within {})", rounds(r->low)) : std::string());
    }
  }
  return d;
}
}  // namespace

Decision decide_interleaved(const std::vector<double>& baseline_round_ms, const std::vector<double>& candidate_round_ms,
                            PriceRatio price_ratio, const DecisionSettings& settings, double seconds_per_round) {
  return decide(paired(baseline_round_ms, candidate_round_ms), baseline_round_ms, candidate_round_ms, price_ratio, settings,
                seconds_per_round);
}

Decision decide_interleaved(const RoundSteps& baseline, const RoundSteps& candidate, PriceRatio price_ratio,
                            const DecisionSettings& settings, double seconds_per_round) {
  return decide(paired(baseline, candidate), baseline.round_means(), candidate.round_means(), price_ratio, settings,
                seconds_per_round);
}

namespace {
/// Running sums of paired rounds (baseline b, candidate c) from which the decision's figures
/// follow in O(1) per round: the means, the linearised terms' variance and their lag-1
/// autocorrelation (psi_j = c_j / mc - b_j / mb has mean 0).
struct RoundSums {
  size_t t = 0;
  double sb = 0, sc = 0, sbb = 0, scc = 0, sbc = 0;  // sums of b, c, b^2, c^2, b c
  double lbb = 0, lcc = 0, lbc = 0, lcb = 0;          // lag-1 sums: b_j b_j-1, c_j c_j-1, b_j c_j-1, c_j b_j-1
  double last_b = 0, last_c = 0;
  void add(double b, double c) {
    if (t > 0) lbb += b * last_b, lcc += c * last_c, lbc += b * last_c, lcb += c * last_b;
    sb += b, sc += c, sbb += b * b, scc += c * c, sbc += b * c;
    last_b = b, last_c = c;
    ++t;
  }
  /// The verdict from these rounds, as decide_interleaved reads it (`unit_half[t]`: the
  /// sequence's half-width at t rounds for sd 1).
  CostVerdict verdict(const std::vector<double>& unit_half, PriceRatio price_ratio, const DecisionSettings& s,
                      const std::optional<StepImplied>& steps) const {
    const double n = static_cast<double>(t), mb = sb / n, mc = sc / n;
    const double den = scc / (mc * mc) - 2 * sbc / (mc * mb) + sbb / (mb * mb);
    if (!(den > 0)) return CostVerdict::undecided;
    // The sum of psi_j psi_j-1 over j >= 1.
    const double num = (lcc / (mc * mc) - (lbc + lcb) / (mc * mb) + lbb / (mb * mb));
    const double r = used_correlation(num / den, den / (n - 1), n, steps);
    const double half = unit_half[t] * std::sqrt(den / (n - 1)) * std::sqrt((1 + r) / (1 - r));
    const double log_ratio = std::log(mc / mb);
    return verdict_of(improvement_bounds({log_ratio - half, log_ratio + half}, price_ratio), s.equivalence_pct);
  }
};

/// The prediction's paths and the seed (fixed: the same rounds give the same prediction).
constexpr int kRoundsToDecidePaths = 200;
constexpr uint64_t kRoundsToDecideSeed = 40;
/// The simulated true difference: the estimate's log cost ratio c shrunk to c (1 - 0.25 se^2 /
/// c^2) (positive part), spread by 0.75 se for the 80 % range. Fitted by simulation
/// (`pperf_stats_sim predict`, docs/statistics.md): the full posterior (no shrinking, spread se)
/// is optimistic wherever the truth lies near break-even or the margin's edge (an estimate drawn
/// far from it decides fast), and its 80 % range too wide elsewhere. Calibrated over the mix of
/// the `predict` cases (issue 40 item 5: one run's 20 rounds cannot tell the cases apart): with
/// 0.6 se the range held 76 % of the mix, with 0.75 se 82 % (1000 trials a case).
constexpr double kPredictShrink = 0.25, kPredictSpread = 0.75;
/// The median comes from paths spread by 0.45 se: over the mix it was met 54.5 % of the time with
/// 0.3 se and 51.5 % with 0.45 se (goal 50 %); case by case 33-68 % and 24-68 %.
constexpr double kPredictMedianSpread = 0.45;

/// Uniform on [0, 1) and standard normal draws from mt19937_64 itself (the standard fixes its
/// sequence, not the distributions'), so a prediction is the same on every platform.
double uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }
double normal01(std::mt19937_64& rng) {
  const double u = 1 - uniform01(rng), v = uniform01(rng);
  return std::sqrt(-2 * std::log(u)) * std::cos(6.283185307179586 * v);
}

std::optional<RoundsToDecide> predict(const PairedRounds& p, const std::vector<double>& baseline_round_ms,
                                      const std::vector<double>& candidate_round_ms, PriceRatio price_ratio,
                                      const DecisionSettings& settings) {
  if (p.t < 2) return std::nullopt;
  const double sd = stdev(p.psi);
  if (!(sd > 0) || !std::isfinite(sd)) return std::nullopt;
  // The rounds to come are drawn from the rounds so far (pairs resampled), the candidate's scaled
  // so that the true difference is uncertain as the estimate is: centred on the estimate shrunk
  // towards break-even, spread by a share of its standard error (kPredictShrink, kPredictSpread;
  // kPredictMedianSpread for the median). The real rule decides each path; the paths' stopping
  // rounds give the median and 10th..90th percentiles.
  const double se = sd * round_correlation_widening(p.psi, p.steps) / std::sqrt(static_cast<double>(p.t));
  const size_t horizon = std::max<size_t>(kRoundsToDecideHorizon, p.t + 1);
  std::vector<double> unit_half(horizon + 1, 0);
  for (size_t t = std::max<size_t>(2, settings.min_rounds); t <= horizon; ++t)
    unit_half[t] = confidence_sequence_halfwidth(1, t, settings);
  // The cost ratio's log at the middle of the price range: 0 at break-even.
  const double cost = p.log_ratio + std::log(std::sqrt(price_ratio[0] * price_ratio[1]));
  const double pull = cost - cost * std::max(0.0, 1 - kPredictShrink * se * se / (cost * cost));
  RoundSums now;
  for (size_t j = 0; j < p.t; ++j) now.add(baseline_round_ms[j], candidate_round_ms[j]);
  // The paths' stopping rounds, sorted, for a spread of the true difference (the same seed: the
  // same resampled rounds for each spread).
  const auto stops_for = [&](double spread) {
    std::mt19937_64 rng(kRoundsToDecideSeed);
    std::vector<double> stops;
    for (int path = 0; path < kRoundsToDecidePaths; ++path) {
      const double shift = std::exp(-pull + spread * se * normal01(rng));
      RoundSums s = now;
      double stop = std::numeric_limits<double>::infinity();
      while (s.t < horizon) {
        const size_t j = static_cast<size_t>(uniform01(rng) * static_cast<double>(p.t));
        s.add(baseline_round_ms[j], candidate_round_ms[j] * shift);
        if (s.t >= settings.min_rounds && s.verdict(unit_half, price_ratio, settings, p.steps) != CostVerdict::undecided) {
          stop = static_cast<double>(s.t);
          break;
        }
      }
      stops.push_back(stop);
    }
    std::sort(stops.begin(), stops.end());
    return stops;
  };
  const auto quantile = [](const std::vector<double>& stops, double q) {
    return stops[static_cast<size_t>(q * static_cast<double>(stops.size() - 1) + 0.5)];
  };
  const std::vector<double> range = stops_for(kPredictSpread), centre = stops_for(kPredictMedianSpread);
  return RoundsToDecide{quantile(centre, 0.5), quantile(range, 0.1), quantile(range, 0.9)};
}
}  // namespace

std::optional<RoundsToDecide> rounds_to_decide(const std::vector<double>& baseline_round_ms,
                                               const std::vector<double>& candidate_round_ms, PriceRatio price_ratio,
                                               const DecisionSettings& settings) {
  return predict(paired(baseline_round_ms, candidate_round_ms), baseline_round_ms, candidate_round_ms, price_ratio, settings);
}

std::optional<RoundsToDecide> rounds_to_decide(const RoundSteps& baseline, const RoundSteps& candidate,
                                               PriceRatio price_ratio, const DecisionSettings& settings) {
  return predict(paired(baseline, candidate), baseline.round_means(), candidate.round_means(), price_ratio, settings);
}

namespace {
std::optional<std::array<double, 2>> anytime_interval(const PairedRounds& p, const DecisionSettings& settings) {
  const std::optional<double> half = anytime_halfwidth(p, settings);
  if (!half) return std::nullopt;
  return std::array<double, 2>{std::exp(p.log_ratio - *half), std::exp(p.log_ratio + *half)};
}
}  // namespace

std::optional<std::array<double, 2>> anytime_time_ratio_interval(const std::vector<double>& baseline_round_ms,
                                                                 const std::vector<double>& candidate_round_ms,
                                                                 const DecisionSettings& settings) {
  return anytime_interval(paired(baseline_round_ms, candidate_round_ms), settings);
}

std::optional<std::array<double, 2>> anytime_time_ratio_interval(const RoundSteps& baseline, const RoundSteps& candidate,
                                                                 const DecisionSettings& settings) {
  return anytime_interval(paired(baseline, candidate), settings);
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

std::optional<PairedLogRatio> paired_log_ratio(const RoundSteps& baseline, const RoundSteps& candidate) {
  const PairedRounds p = paired(baseline, candidate);
  if (p.t < 2) return std::nullopt;
  const double sd = stdev(p.psi);
  if (!(sd > p.resolution) || !std::isfinite(sd)) return std::nullopt;
  const double t = static_cast<double>(p.t);
  return PairedLogRatio{p.log_ratio, sd / std::sqrt(t) * round_correlation_widening(p.psi, p.steps), t - 1};
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
