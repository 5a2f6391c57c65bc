#pragma once
// Stop rules for the measured phase (warmup is never counted). Each rule is a small object the
// runner consults after every step; the first that fires ends the phase and names the reason.
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pperf {

struct MeasureSettings {
  int64_t warmup_steps = 3;
  int64_t min_steps = 10;
  int64_t max_steps = 200;
  double max_seconds = 60;      // measured phase only
  double target_rel_ci = 0.02;  // stop once the median's 95 % CI half-width / median is below
};

class StopRule {
 public:
  virtual ~StopRule() = default;
  /// Called with every measured step time so far (ms) and the measured phase's elapsed
  /// seconds. Returns the stop reason when the phase should end, nullopt to go on.
  virtual std::optional<std::string> check(const std::vector<double>& step_ms,
                                           double elapsed_s) const = 0;
};

std::unique_ptr<StopRule> stop_at_max_steps(int64_t max_steps);
std::unique_ptr<StopRule> stop_at_max_seconds(double max_seconds);
/// Fires once at least `min_steps` are in and the median's relative CI half-width <= target.
std::unique_ptr<StopRule> stop_at_target_rel_ci(int64_t min_steps, double target_rel_ci);

/// The standard set for a MeasureSettings: max steps, max seconds, target CI.
std::vector<std::unique_ptr<StopRule>> make_stop_rules(const MeasureSettings& settings);

/// The first rule's reason, or nullopt.
std::optional<std::string> first_stop_reason(const std::vector<std::unique_ptr<StopRule>>& rules,
                                             const std::vector<double>& step_ms, double elapsed_s);

}  // namespace pperf
