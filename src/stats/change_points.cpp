#include "src/stats/change_points.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <stdexcept>

#include "src/stats/compare_stats.h"
#include "src/stats/stats.h"

namespace pperf {

namespace {

/// Sum of |x - median| of a growing set of values, O(log n) per value: the lower half (with
/// the median when the count is odd) in a max-heap, the upper half in a min-heap, and their sums.
class RunningL1 {
 public:
  void add(double v) {
    if (low_.empty() || v <= low_.top()) low_.push(v), low_sum_ += v;
    else high_.push(v), high_sum_ += v;
    if (low_.size() > high_.size() + 1) {
      high_.push(low_.top()), high_sum_ += low_.top(), low_sum_ -= low_.top(), low_.pop();
    } else if (high_.size() > low_.size()) {
      low_.push(high_.top()), low_sum_ += high_.top(), high_sum_ -= high_.top(), high_.pop();
    }
  }
  double cost() const { return high_sum_ - low_sum_ + (low_.size() > high_.size() ? low_.top() : 0); }

 private:
  std::priority_queue<double> low_;
  std::priority_queue<double, std::vector<double>, std::greater<double>> high_;
  double low_sum_ = 0, high_sum_ = 0;
};

double noise_sigma(const std::vector<double>& x) {
  if (x.size() < 3) return 1e-4;
  std::vector<double> d;
  for (size_t i = 1; i < x.size(); ++i) d.push_back(x[i] - x[i - 1]);
  const double md = median(d);
  std::vector<double> dev;
  for (double v : d) dev.push_back(std::fabs(v - md));
  return std::max(1e-4, 1.4826 * median(dev) / std::sqrt(2.0));
}

}  // namespace

std::vector<Segment> fit_segments(const std::vector<double>& values, const ChangePointOptions& o) {
  const size_t n = values.size();
  std::vector<double> x;
  for (double v : values) {
    if (!(v > 0) || !std::isfinite(v)) throw std::invalid_argument("fit_segments needs finite values > 0");
    x.push_back(std::log(v));
  }
  if (n == 0) return {};
  const size_t L = std::max<size_t>(1, o.min_segment);
  std::vector<size_t> starts = {0};
  if (n >= 2 * L) {
    const double sigma = noise_sigma(x);
    const double scale = 2 * std::sqrt(2.0) / sigma;
    const double beta = o.penalty_factor * std::log(static_cast<double>(n));
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> best(n + 1, inf);
    std::vector<size_t> prev(n + 1, 0);
    best[0] = -beta;
    // Each start i in order (best[i] is final then: segments ending at i start before it),
    // extended one value at a time; values taken relative to x[i] keep the sums small. Among
    // equal costs the earliest start wins. O(n^2 log n) time, O(n) memory.
    for (size_t i = 0; i + L <= n; ++i) {
      if (best[i] == inf || (i > 0 && i < L)) continue;
      RunningL1 segment;
      for (size_t j = i; j < n; ++j) {
        segment.add(x[j] - x[i]);
        if (j + 1 - i < L) continue;
        const double c = best[i] + beta + scale * segment.cost();
        if (c < best[j + 1]) best[j + 1] = c, prev[j + 1] = i;
      }
    }
    starts.clear();
    for (size_t j = n; j > 0; j = prev[j]) starts.push_back(prev[j]);
    std::reverse(starts.begin(), starts.end());
  }
  auto level = [&](size_t b, size_t e) {
    return std::exp(median(std::vector<double>(x.begin() + static_cast<long>(b), x.begin() + static_cast<long>(e))));
  };
  std::vector<Segment> segments;
  for (size_t k = 0; k < starts.size(); ++k) {
    const size_t b = starts[k], e = k + 1 < starts.size() ? starts[k + 1] : n;
    segments.push_back({b, e, level(b, e)});
  }
  // Confirm each change: merge the weakest boundary (too small a step, or the largest U-test
  // p-value above alpha) until none is left.
  auto logs_of = [&](const Segment& s) {
    return std::vector<double>(x.begin() + static_cast<long>(s.begin), x.begin() + static_cast<long>(s.end));
  };
  while (segments.size() > 1) {
    size_t weakest = 0;
    double worst = -1;
    for (size_t k = 1; k < segments.size(); ++k) {
      const bool tiny = std::fabs(segments[k].level / segments[k - 1].level - 1) < o.min_rel_change;
      const double p = tiny ? 2.0 : mann_whitney_u(logs_of(segments[k - 1]), logs_of(segments[k])).p_value;
      if (p > worst) worst = p, weakest = k;
    }
    if (worst <= o.alpha) break;
    segments[weakest - 1].end = segments[weakest].end;
    segments[weakest - 1].level = level(segments[weakest - 1].begin, segments[weakest - 1].end);
    segments.erase(segments.begin() + static_cast<long>(weakest));
  }
  return segments;
}

std::vector<size_t> change_points(const std::vector<double>& values, const ChangePointOptions& o) {
  std::vector<size_t> out;
  const auto segments = fit_segments(values, o);
  for (size_t k = 1; k < segments.size(); ++k) out.push_back(segments[k].begin);
  return out;
}

}  // namespace pperf
