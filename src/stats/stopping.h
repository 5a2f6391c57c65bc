#pragma once
// Stop rules for the measured phase (warmup is never counted). Each rule is a small object the
// runner consults after every step; the first that fires ends the phase and names the reason.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "src/core/measurement.h"

namespace pperf {

/// When the measured phase may end: the budget (max_steps, max_seconds), the floor (min_steps)
/// and what ends it before the budget (the criterion, by name: stop_criteria()).
struct StopSettings {
  int64_t min_steps = 10;
  int64_t max_steps = 200;
  double max_seconds = 60;      // measured phase only
  double target_rel_ci = 0.02;  // "precision": stop once the 95 % CI half-widths of mean and median / estimate are below
  std::string criterion = "precision";
};

class StopRule {
 public:
  virtual ~StopRule() = default;
  /// Called after every measured step with every measured step time so far (ms; the same
  /// vector, one sample longer each call) and the measured phase's elapsed seconds. Returns why
  /// the phase should end, nullopt to go on. A rule may keep running state.
  virtual std::optional<StopCause> check(const std::vector<double>& step_ms, double elapsed_s) = 0;
};

std::unique_ptr<StopRule> stop_at_max_steps(int64_t max_steps);
std::unique_ptr<StopRule> stop_at_max_seconds(double max_seconds);
/// The fewest steps after which the precision rule may stop on `target_rel_ci`: 3 / target
/// (60 at 5 %, 150 at 2 %, 300 at 1 %). A kind of step not yet seen in n steps may still occur
/// with frequency 3/n (the 95 % bound of the rule of three); at twice the usual step time it
/// would raise the mean by 3/n, more than the target before these many steps.
double unseen_tail_steps(double target_rel_ci);
/// The mean's 95 % CI half-width relative to the mean as the spread of every step gives it:
/// 1.96 * stdev / sqrt(n) * autocorrelation_widening(lag-1 r of the log steps, n) / mean
/// (src/stats/intervals.h). inf for fewer than 2 steps or invalid ones (valid_step_times).
/// With n - 1 degrees of freedom it is far less noisy than the printed interval's batch means
/// (k - 1 = 5..29): a run whose few batch means happen to agree does not pass for converged.
double steps_rel_halfwidth(const std::vector<double>& step_ms);
/// Fires once at least max(min_steps, kMinCiSteps, unseen_tail_steps(target)) are in and the
/// mean's and the median's 95 % CI half-widths relative to their estimates (src/stats/intervals.h)
/// and steps_rel_halfwidth are all <= target at two consecutive looks. It looks rarely, so
/// stopping does not pick the runs whose spread happens to look small: first at the minimum, then
/// where the last look's half-widths say the target will be met, and at least 25 % later each
/// time; and once more at max_steps (one look decides there).
std::unique_ptr<StopRule> stop_at_target_rel_ci(int64_t min_steps, double target_rel_ci, int64_t max_steps = 0);

/// What may end the measured phase before its budget, by name (as nvbench's stopping criteria):
/// "precision" (the default: stop_at_target_rel_ci) and "budget" (nothing: every run measures
/// to max_steps or max_seconds, for a fixed-cost comparison).
struct StopCriterion {
  std::string name;
  std::string description;
  /// The rule, or nullptr for none.
  std::function<std::unique_ptr<StopRule>(const StopSettings&)> make;
};
const std::vector<StopCriterion>& stop_criteria();
/// The criterion named `name`; nullptr when there is none.
const StopCriterion* find_stop_criterion(const std::string& name);

/// The rules of `settings`: its criterion's (if any), max steps, max seconds (in that order). A
/// criterion stop_criteria() lacks is a std::invalid_argument (config loading refuses it first).
std::vector<std::unique_ptr<StopRule>> make_stop_rules(const StopSettings& settings);

/// The first rule's cause, or nullopt.
std::optional<StopCause> first_stop(std::vector<std::unique_ptr<StopRule>>& rules, const std::vector<double>& step_ms,
                                    double elapsed_s);

}  // namespace pperf
