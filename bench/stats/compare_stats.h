#pragma once
// Statistics for comparing two sets of samples (a baseline and a candidate): rank test,
// Hodges–Lehmann relative change, Benjamini–Hochberg correction, bootstrap ratio CI.
// Free functions, no state, no torch. Violated preconditions throw std::invalid_argument.
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
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

/// k-th smallest (1-based, 1 <= k <= n_x n_y) of the n_x n_y differences y_j - x_i, each
/// evaluated as the double y_j - x_i, so the result equals sorting all of them and indexing.
/// Preconditions: x and y non-empty, sorted ascending, finite.
/// Method: binary search over the 64-bit ordered encoding of doubles (<= 64 steps), counting
/// #{y_j - x_i <= v} with a two-pointer sweep: O((n_x + n_y) * 64) time, O(1) extra memory.
double kth_pairwise_difference(const std::vector<double>& x, const std::vector<double>& y,
                               uint64_t k);

struct RelativeChange {
  double estimate = 0;             ///< candidate / baseline - 1, e.g. 0.10 = 10 % larger.
  std::array<double, 2> ci{0, 0};  ///< Confidence interval of `estimate`, ci[0] <= ci[1].
};

/// Hodges–Lehmann estimate of the relative change of `candidate` vs `baseline`, on log values.
/// Preconditions: both non-empty, all values > 0 and finite, confidence in (0, 1).
/// shift = median of the N = n_b n_c differences d = log(c_j) - log(b_i) (mean of the two
/// middle ones when N is even); CI = [d_(K), d_(N+1-K)] with d_(k) the k-th smallest and
/// K = round(N/2 - z sqrt(N (n_b + n_c + 1) / 12)), z the (1 + confidence)/2 normal quantile
/// (normal approximation of the null U distribution; rounding = continuity correction),
/// K clamped to [1, N]. Returned as estimate = exp(shift) - 1, ci = {exp(lo) - 1, exp(hi) - 1}.
/// Uses kth_pairwise_difference: pairs are never materialised (fast for 10^4 x 10^4).
RelativeChange hodges_lehmann_log_ratio(const std::vector<double>& baseline,
                                        const std::vector<double>& candidate,
                                        double confidence = 0.95);

/// Benjamini–Hochberg adjusted p-values (q-values), in input order: with p sorted ascending,
/// q_(i) = min over j >= i of min(1, p_(j) m / j). So p <= q <= 1 and q is monotone in p.
/// Preconditions: every p in [0, 1]. Empty input gives empty output.
std::vector<double> benjamini_hochberg(const std::vector<double>& p_values);

/// Percentile bootstrap confidence interval of statistic(b) / statistic(a).
/// Each of `resamples` replicates draws n_a values of `a`, then n_b values of `b`, with
/// replacement, from one std::mt19937_64(seed) (index = draw % n, so the same seed gives the
/// same CI on every platform); CI = {(1 - confidence)/2, (1 + confidence)/2} quantiles of the
/// replicate ratios, linearly interpolated between order statistics.
/// Preconditions: a, b non-empty, resamples >= 1, confidence in (0, 1), statistic != 0 on a's resamples.
std::array<double, 2> bootstrap_ratio_ci(
    const std::vector<double>& a, const std::vector<double>& b,
    const std::function<double(const std::vector<double>&)>& statistic, int resamples,
    uint64_t seed, double confidence = 0.95);

}  // namespace pperf
