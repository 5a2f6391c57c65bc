#pragma once
// Statistics for comparing a candidate run with a baseline: the change of the mean step time
// (what the bill follows) within one run each, or against several baseline runs taken as
// clusters; Benjamini–Hochberg across pairs; the rank test history's change points use.
// Free functions, no state, no torch. Violated preconditions throw std::invalid_argument.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace pperf {

struct MannWhitney {
  double u = 0;        ///< U of `a`: #{a_i > b_j} + 0.5 #{a_i == b_j}; U_a + U_b = n_a n_b.
  double p_value = 1;  ///< Two-sided p-value in [0, 1].
  bool exact = false;  ///< True when the exact null distribution was used.
};

/// Largest n_a + n_b for which mann_whitney_u uses the exact null distribution.
constexpr size_t kMannWhitneyExactMaxTotal = 50;

/// Two-sided Mann–Whitney U test of `a` against `b` (both non-empty; ties get midranks).
/// Exact when the pooled samples have no ties and n_a + n_b <= kMannWhitneyExactMaxTotal:
/// the null counts of U are the coefficients of the Gaussian binomial [n_a+n_b choose n_a]_q
/// (int64 dynamic programming, no rounding), p = min(1, 2 P(U >= max(U_a, U_b))).
/// Otherwise the normal approximation with tie-corrected variance and continuity correction:
/// z = (max(U_a, U_b) - n_a n_b / 2 - 0.5) / sigma, p = min(1, 2 (1 - Phi(z))); p = 1 if sigma = 0.
/// Same p-values as scipy.stats.mannwhitneyu(a, b, alternative='two-sided') with
/// method='exact' resp. 'asymptotic'.
MannWhitney mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b);

/// The relative change of the mean step time, candidate over baseline, with its test.
struct MeanChange {
  double estimate = 0;             ///< candidate / baseline - 1, e.g. 0.10 = 10 % slower.
  std::array<double, 2> ci{0, 0};  ///< its interval at the confidence asked, ci[0] <= ci[1]
  double p_value = 1;              ///< two-sided, of "no change"
  double dof = 0;                  ///< of the t reference
};

/// One run against one run: Welch's t on the log ratio of the two means, each mean's standard
/// error from its batch means (mean_with_error: serial correlation and slow steps stay inside
/// batches), se(log mean) = se / mean, Welch–Satterthwaite degrees of freedom. It sees the
/// noise within each run, not the run-to-run variation of a shared host (docs/compare.md has
/// what that costs). nullopt when either side has no mean interval (fewer than kMinCiSteps
/// samples, invalid samples or no spread): then nothing can be decided.
/// Precondition: confidence in (0, 1).
std::optional<MeanChange> welch_mean_change(const std::vector<double>& baseline, const std::vector<double>& candidate,
                                            double confidence = 0.95);

/// Fewest baseline runs for a test against earlier runs: with two, the run-to-run spread has one
/// degree of freedom and the prediction interval is too wide to ever decide.
constexpr size_t kMinBaselineRuns = 3;

/// A candidate run's mean against k baseline runs' means (ms), each run one cluster: on logs,
/// the prediction interval for one more run, t = (log c - m) / (s sqrt(1 + 1/k)) with m and s
/// the mean and standard deviation of the k log run means, k - 1 degrees of freedom. The spread
/// between runs (a slower night on a shared host) is in s, so an ordinary night is not an alarm.
/// estimate = exp(log c - m) - 1 (the change against the runs' geometric mean); ci its
/// prediction interval. nullopt below kMinBaselineRuns. s = 0 (identical runs) gives p = 1 for
/// an identical candidate, else 0. Preconditions: every mean finite and > 0, confidence in (0, 1).
std::optional<MeanChange> run_to_run_change(const std::vector<double>& baseline_run_means, double candidate_mean,
                                            double confidence = 0.95);

/// Where an interval of a change (%) lies against a threshold t >= 0: above when its lower end
/// exceeds +t, below when its upper end is under -t, else within. `pperf compare` calls a pair
/// regressed/improved only when its interval clears the threshold (a point estimate beyond it
/// is not enough: docs/compare.md has the simulated rates).
enum class ThresholdSide { below, within, above };
ThresholdSide threshold_side(const std::array<double, 2>& change_pct_interval, double threshold_pct);

/// Benjamini–Hochberg adjusted p-values (q-values), in input order: with p sorted ascending,
/// q_(i) = min over j >= i of min(1, p_(j) m / j). So p <= q <= 1 and q is monotone in p.
/// Preconditions: every p in [0, 1]. Empty input gives empty output.
std::vector<double> benjamini_hochberg(const std::vector<double>& p_values);

}  // namespace pperf
