#include "bench/stats/compare_stats.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>

#include <boost/math/distributions/normal.hpp>

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

// Order-preserving map of doubles onto uint64 (for finite values and +-0).
uint64_t ordered_key(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return (bits >> 63) ? ~bits : (bits | (uint64_t{1} << 63));
}

double from_ordered_key(uint64_t key) {
  const uint64_t bits = (key >> 63) ? (key & ~(uint64_t{1} << 63)) : ~key;
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

// #{(i, j): y_j - x_i <= v} for sorted x, y. For growing x_i the qualifying j form a growing prefix.
uint64_t count_le(const std::vector<double>& x, const std::vector<double>& y, double v) {
  uint64_t count = 0;
  size_t j = 0;
  for (double xi : x) {
    while (j < y.size() && y[j] - xi <= v) ++j;
    count += j;
  }
  return count;
}

std::vector<double> sorted_logs(const std::vector<double>& values) {
  std::vector<double> out;
  out.reserve(values.size());
  for (double v : values) {
    require(v > 0 && std::isfinite(v), "hodges_lehmann_log_ratio needs finite values > 0");
    out.push_back(std::log(v));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Quantile q in [0, 1] of sorted values, linear interpolation between order statistics.
double sorted_quantile(const std::vector<double>& s, double q) {
  const double h = q * static_cast<double>(s.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(h));
  const size_t hi = std::min(lo + 1, s.size() - 1);
  return s[lo] + (h - static_cast<double>(lo)) * (s[hi] - s[lo]);
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

double kth_pairwise_difference(const std::vector<double>& x, const std::vector<double>& y,
                               uint64_t k) {
  require(!x.empty() && !y.empty(), "kth_pairwise_difference needs non-empty inputs");
  require(std::is_sorted(x.begin(), x.end()) && std::is_sorted(y.begin(), y.end()),
          "kth_pairwise_difference needs sorted inputs");
  require(k >= 1 && k <= uint64_t{x.size()} * y.size(), "kth_pairwise_difference: k out of range");
  // Smallest v (in double order) with count_le(v) >= k; it is always one of the differences.
  uint64_t lo = ordered_key(y.front() - x.back()), hi = ordered_key(y.back() - x.front());
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (count_le(x, y, from_ordered_key(mid)) >= k)
      hi = mid;
    else
      lo = mid + 1;
  }
  return from_ordered_key(lo) + 0.0;  // + 0.0 turns -0 into 0
}

RelativeChange hodges_lehmann_log_ratio(const std::vector<double>& baseline,
                                        const std::vector<double>& candidate,
                                        double confidence) {
  require(!baseline.empty() && !candidate.empty(),
          "hodges_lehmann_log_ratio needs two non-empty samples");
  require(confidence > 0 && confidence < 1, "confidence must be in (0, 1)");
  const std::vector<double> lb = sorted_logs(baseline), lc = sorted_logs(candidate);
  const uint64_t N = uint64_t{lb.size()} * lc.size();
  auto kth = [&](uint64_t k) { return kth_pairwise_difference(lb, lc, k); };

  const double shift = N % 2 ? kth((N + 1) / 2) : 0.5 * (kth(N / 2) + kth(N / 2 + 1));
  const double z = boost::math::quantile(boost::math::normal(), 0.5 + confidence / 2);
  const double nd = static_cast<double>(N);
  const double k_real =
      nd / 2 - z * std::sqrt(nd * static_cast<double>(lb.size() + lc.size() + 1) / 12);
  const uint64_t K = k_real < 1 ? 1 : std::min<uint64_t>(N, std::llround(k_real));

  RelativeChange r;
  r.estimate = std::expm1(shift);
  r.ci = {std::expm1(kth(K)), std::expm1(kth(N + 1 - K))};
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

std::array<double, 2> bootstrap_ratio_ci(
    const std::vector<double>& a, const std::vector<double>& b,
    const std::function<double(const std::vector<double>&)>& statistic, int resamples,
    uint64_t seed, double confidence) {
  require(!a.empty() && !b.empty(), "bootstrap_ratio_ci needs two non-empty samples");
  require(resamples >= 1, "bootstrap_ratio_ci needs resamples >= 1");
  require(confidence > 0 && confidence < 1, "confidence must be in (0, 1)");
  std::mt19937_64 rng(seed);
  std::vector<double> ra(a.size()), rb(b.size()), ratios;
  ratios.reserve(static_cast<size_t>(resamples));
  for (int r = 0; r < resamples; ++r) {
    for (double& v : ra) v = a[rng() % a.size()];
    for (double& v : rb) v = b[rng() % b.size()];
    ratios.push_back(statistic(rb) / statistic(ra));
  }
  std::sort(ratios.begin(), ratios.end());
  return {sorted_quantile(ratios, (1 - confidence) / 2),
          sorted_quantile(ratios, (1 + confidence) / 2)};
}

}  // namespace pperf
