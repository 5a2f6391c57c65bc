#include "bench/stats/stopping.h"

#include <fmt/format.h>

#include <algorithm>

#include "bench/stats/intervals.h"

namespace pperf {

namespace {
class MaxSteps : public StopRule {
 public:
  explicit MaxSteps(int64_t n) : n_(n) {}
  std::optional<std::string> check(const std::vector<double>& step_ms, double) override {
    if (static_cast<int64_t>(step_ms.size()) >= n_) return fmt::format("max_steps ({})", n_);
    return std::nullopt;
  }

 private:
  int64_t n_;
};

class MaxSeconds : public StopRule {
 public:
  explicit MaxSeconds(double s) : s_(s) {}
  std::optional<std::string> check(const std::vector<double>&, double elapsed_s) override {
    if (elapsed_s >= s_) return fmt::format("max_seconds ({:g} s)", s_);
    return std::nullopt;
  }

 private:
  double s_;
};

class TargetRelCi : public StopRule {
 public:
  TargetRelCi(int64_t min_steps, double target) : min_steps_(min_steps), target_(target) {}
  std::optional<std::string> check(const std::vector<double>& step_ms, double) override {
    const size_t n = step_ms.size();
    if (static_cast<int64_t>(n) < min_steps_ || n < kMinCiSteps || n < next_check_) return std::nullopt;
    // Both intervals cost O(n): asked every n/50 steps, so the rule costs O(50) per step and
    // stops at most 2 % later than it could.
    next_check_ = n + std::max<size_t>(1, n / 50);
    const RelativePrecision p = relative_precision(step_ms);
    if (!(p.mean <= target_ && p.median <= target_)) return std::nullopt;
    return fmt::format("target_rel_ci (mean ±{:.2f} %, median ±{:.2f} % <= {:.2f} %)", p.mean * 100, p.median * 100,
                       target_ * 100);
  }

 private:
  int64_t min_steps_;
  double target_;
  size_t next_check_ = 0;
};
}  // namespace

std::unique_ptr<StopRule> stop_at_max_steps(int64_t n) { return std::make_unique<MaxSteps>(n); }
std::unique_ptr<StopRule> stop_at_max_seconds(double s) { return std::make_unique<MaxSeconds>(s); }
std::unique_ptr<StopRule> stop_at_target_rel_ci(int64_t min_steps, double target) {
  return std::make_unique<TargetRelCi>(min_steps, target);
}

std::vector<std::unique_ptr<StopRule>> make_stop_rules(const MeasureSettings& s) {
  std::vector<std::unique_ptr<StopRule>> rules;
  // The target first: a run that meets it on its last allowed step has converged.
  rules.push_back(stop_at_target_rel_ci(s.min_steps, s.target_rel_ci));
  rules.push_back(stop_at_max_steps(s.max_steps));
  rules.push_back(stop_at_max_seconds(s.max_seconds));
  return rules;
}

std::optional<std::string> first_stop_reason(std::vector<std::unique_ptr<StopRule>>& rules,
                                             const std::vector<double>& step_ms, double elapsed_s) {
  for (const auto& rule : rules)
    if (auto reason = rule->check(step_ms, elapsed_s)) return reason;
  return std::nullopt;
}

}  // namespace pperf
