#pragma once
// Scaling efficiency of data-parallel training with its interval, from the measured steps:
//   efficiency = throughput(N) / (k x throughput(reference)),  throughput = samples per step / mean step,
// k = N's instances over the reference's (1 -> N: k = N). A ratio of two means, not of two
// medians: the mean is what a job is billed for, and its standard error (mean_with_error: batch
// means, lag-1 widened) is what every other interval of pperf stands on. The interval is the
// delta method on the log of the ratio (the two runs are independent):
//   se_log^2 = (se_ref / mean_ref)^2 + (se_N / mean_N)^2,  [eff x exp(-t se_log), eff x exp(t se_log)]
// t at the Welch-Satterthwaite degrees of freedom of the two relative errors.
#include <cstdint>
#include <optional>
#include <vector>

#include "src/stats/intervals.h"

namespace pperf {

struct EfficiencyEstimate {
  double value = 0, lo = 0, hi = 0;
  double se_log = 0;  // standard error of log(efficiency)
  double dof = 0;     // Welch-Satterthwaite degrees of freedom of se_log
};

/// The efficiency of a point against the reference (see above). `ref_samples` and `samples` are
/// samples per step (all ranks), `k` the point's instances over the reference's (> 0). Means and
/// errors in the same unit (ms).
EfficiencyEstimate scaling_efficiency(const MeanWithError& reference, double ref_samples, const MeanWithError& point,
                                      double samples, double k, double level = 0.95);

/// The same from the two points' step-time samples; nullopt where either has no interval
/// (mean_with_error: below kMinCiSteps, no spread).
std::optional<EfficiencyEstimate> scaling_efficiency(const std::vector<double>& reference_ms, double ref_samples,
                                                     const std::vector<double>& point_ms, double samples, double k,
                                                     double level = 0.95);

}  // namespace pperf
