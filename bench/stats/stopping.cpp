#include "bench/stats/stopping.h"

#include <fmt/format.h>

#include "bench/stats/stats.h"

namespace pperf {

namespace {
class MaxSteps : public StopRule {
 public:
  explicit MaxSteps(int64_t n) : n_(n) {}
  std::optional<std::string> check(const std::vector<double>& step_ms, double) const override {
    if (static_cast<int64_t>(step_ms.size()) >= n_) return fmt::format("max_steps ({})", n_);
    return std::nullopt;
  }

 private:
  int64_t n_;
};

class MaxSeconds : public StopRule {
 public:
  explicit MaxSeconds(double s) : s_(s) {}
  std::optional<std::string> check(const std::vector<double>&, double elapsed_s) const override {
    if (elapsed_s >= s_) return fmt::format("max_seconds ({:g} s)", s_);
    return std::nullopt;
  }

 private:
  double s_;
};

class TargetRelCi : public StopRule {
 public:
  TargetRelCi(int64_t min_steps, double target) : min_steps_(min_steps), target_(target) {}
  std::optional<std::string> check(const std::vector<double>& step_ms, double) const override {
    if (static_cast<int64_t>(step_ms.size()) < min_steps_ || step_ms.size() < 2) return std::nullopt;
    const double m = median(step_ms);
    const auto ci = median_ci95(step_ms);
    const double rel = m > 0 ? (ci[1] - ci[0]) / 2 / m : 0;
    if (rel <= target_) return fmt::format("target_rel_ci ({:.2f} % <= {:.2f} %)", rel * 100, target_ * 100);
    return std::nullopt;
  }

 private:
  int64_t min_steps_;
  double target_;
};
}  // namespace

std::unique_ptr<StopRule> stop_at_max_steps(int64_t n) { return std::make_unique<MaxSteps>(n); }
std::unique_ptr<StopRule> stop_at_max_seconds(double s) { return std::make_unique<MaxSeconds>(s); }
std::unique_ptr<StopRule> stop_at_target_rel_ci(int64_t min_steps, double target) {
  return std::make_unique<TargetRelCi>(min_steps, target);
}

std::vector<std::unique_ptr<StopRule>> make_stop_rules(const MeasureSettings& s) {
  std::vector<std::unique_ptr<StopRule>> rules;
  rules.push_back(stop_at_max_steps(s.max_steps));
  rules.push_back(stop_at_max_seconds(s.max_seconds));
  rules.push_back(stop_at_target_rel_ci(s.min_steps, s.target_rel_ci));
  return rules;
}

std::optional<std::string> first_stop_reason(const std::vector<std::unique_ptr<StopRule>>& rules,
                                             const std::vector<double>& step_ms, double elapsed_s) {
  for (const auto& rule : rules)
    if (auto reason = rule->check(step_ms, elapsed_s)) return reason;
  return std::nullopt;
}

}  // namespace pperf
