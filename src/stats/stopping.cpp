#include "src/stats/stopping.h"

#include <stdexcept>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "src/stats/intervals.h"
#include "src/stats/stats.h"

namespace pperf {

namespace {
class MaxSteps : public StopRule {
 public:
  explicit MaxSteps(int64_t n) : n_(n) {}
  std::optional<StopCause> check(const std::vector<double>& step_ms, double) override {
    if (static_cast<int64_t>(step_ms.size()) >= n_) return StopCause{StopReason::max_steps, fmt::format("max_steps ({})", n_)};
    return std::nullopt;
  }

 private:
  int64_t n_;
};

class MaxSeconds : public StopRule {
 public:
  explicit MaxSeconds(double s) : s_(s) {}
  std::optional<StopCause> check(const std::vector<double>&, double elapsed_s) override {
    if (elapsed_s >= s_) return StopCause{StopReason::max_seconds, fmt::format("max_seconds ({:g} s)", s_)};
    return std::nullopt;
  }

 private:
  double s_;
};

class TargetRelCi : public StopRule {
 public:
  TargetRelCi(int64_t min_steps, double target, int64_t max_steps)
      : min_steps_(min_steps), target_(target), max_steps_(static_cast<size_t>(std::max<int64_t>(0, max_steps))) {}
  std::optional<StopCause> check(const std::vector<double>& step_ms, double) override {
    const size_t n = step_ms.size();
    if (static_cast<int64_t>(n) < min_steps_ || n < kMinCiSteps || (n < next_check_ && n != max_steps_)) return std::nullopt;
    // A kind of step the run has not met may still be as frequent as 3/n (95 %); twice as slow
    // as the rest, it moves the mean by 3/n. No stop on target before that is within it.
    if (static_cast<double>(n) < unseen_tail_steps(target_)) {
      next_check_ = std::max(next_check_, static_cast<size_t>(unseen_tail_steps(target_)));
      return std::nullopt;
    }
    // Looking after every step would stop on the runs whose spread happens to look small, and
    // their intervals would under-cover (the audit: 0 % for rare slow steps). So the rule looks
    // rarely: at the first possible step, then where the intervals seen there say the target
    // would be met (they shrink as 1/sqrt(n)), at least 25 % later each time.
    const RelativePrecision p = relative_precision(step_ms);
    // The printed intervals' own half-widths, and the mean's from every step's spread: where the
    // target is barely out of reach, the runs whose batch means happened to agree would pass on
    // the first alone, and their intervals miss (issue 40: 73-81 % covered).
    const double worst = std::max({p.mean, p.median, steps_rel_halfwidth(step_ms)});
    // A look that meets the target is confirmed by the next, a quarter more steps on: a stretch
    // that merely lacked its slow steps rarely lasts through both.
    const bool met = worst <= target_;
    // On the last allowed step one look decides: the run met its target or it did not.
    if (!met || (!met_before_ && n != max_steps_)) {
      const double planned = met || !std::isfinite(worst) ? 0 : std::ceil(static_cast<double>(n) * (worst / target_) * (worst / target_));
      next_check_ = std::max<size_t>(n + std::max<size_t>(1, n / 4), static_cast<size_t>(std::min(planned, 1e12)));
      met_before_ = met;
      return std::nullopt;
    }
    return StopCause{StopReason::target_rel_ci, fmt::format("target_rel_ci (mean ±{:.2f} %, median ±{:.2f} % <= {:.2f} %)",
                                                            p.mean * 100, p.median * 100, target_ * 100)};
  }

 private:
  int64_t min_steps_;
  double target_;
  size_t max_steps_;
  size_t next_check_ = 0;
  bool met_before_ = false;
};
}  // namespace

double steps_rel_halfwidth(const std::vector<double>& step_ms) {
  const size_t n = step_ms.size();
  if (n < 2 || !valid_step_times(step_ms)) return std::numeric_limits<double>::infinity();
  const double se = stdev(step_ms) / std::sqrt(static_cast<double>(n)) *
                    autocorrelation_widening(lag1_autocorrelation_log(step_ms), n);
  return 1.96 * se / mean(step_ms);
}

double unseen_tail_steps(double target_rel_ci) { return target_rel_ci > 0 ? std::ceil(3 / target_rel_ci - 1e-9) : 0; }

std::unique_ptr<StopRule> stop_at_max_steps(int64_t n) { return std::make_unique<MaxSteps>(n); }
std::unique_ptr<StopRule> stop_at_max_seconds(double s) { return std::make_unique<MaxSeconds>(s); }
std::unique_ptr<StopRule> stop_at_target_rel_ci(int64_t min_steps, double target, int64_t max_steps) {
  return std::make_unique<TargetRelCi>(min_steps, target, max_steps);
}

const std::vector<StopCriterion>& stop_criteria() {
  static const std::vector<StopCriterion> criteria = {
      {"precision",
       "stop once the mean's and the median's 95 % CIs, and the mean's from every step's spread, are within "
       "measure.target_rel_ci (looking rarely)",
       [](const StopSettings& s) { return stop_at_target_rel_ci(s.min_steps, s.target_rel_ci, s.max_steps); }},
      {"budget", "no early stop: measure to max_steps or max_seconds", [](const StopSettings&) { return nullptr; }},
  };
  return criteria;
}

const StopCriterion* find_stop_criterion(const std::string& name) {
  for (const auto& c : stop_criteria())
    if (c.name == name) return &c;
  return nullptr;
}

std::vector<std::unique_ptr<StopRule>> make_stop_rules(const StopSettings& s) {
  const StopCriterion* criterion = find_stop_criterion(s.criterion);
  if (!criterion) throw std::invalid_argument("unknown stop criterion '" + s.criterion + "'");
  std::vector<std::unique_ptr<StopRule>> rules;
  // The criterion first: a run that meets it on its last allowed step has converged.
  if (auto rule = criterion->make(s)) rules.push_back(std::move(rule));
  rules.push_back(stop_at_max_steps(s.max_steps));
  rules.push_back(stop_at_max_seconds(s.max_seconds));
  return rules;
}

std::optional<StopCause> first_stop(std::vector<std::unique_ptr<StopRule>>& rules, const std::vector<double>& step_ms,
                                    double elapsed_s) {
  for (const auto& rule : rules)
    if (auto reason = rule->check(step_ms, elapsed_s)) return reason;
  return std::nullopt;
}

}  // namespace pperf
