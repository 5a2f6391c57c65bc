#include "src/stats/scaling.h"

#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>

#include <cmath>
#include <limits>

namespace pperf {

EfficiencyEstimate scaling_efficiency(const MeanWithError& reference, double ref_samples, const MeanWithError& point,
                                      double samples, double k, double level) {
  EfficiencyEstimate e;
  e.value = (samples / point.mean) / (k * ref_samples / reference.mean);
  const double a = reference.se / reference.mean, b = point.se / point.mean;
  const double v = a * a + b * b;
  e.se_log = std::sqrt(v);
  // Welch-Satterthwaite; a side without error (se 0) or without dof adds nothing to the sum.
  double denominator = 0;
  if (reference.dof > 0) denominator += std::pow(a, 4) / reference.dof;
  if (point.dof > 0) denominator += std::pow(b, 4) / point.dof;
  e.dof = denominator > 0 ? v * v / denominator : std::numeric_limits<double>::infinity();
  const double t = std::isfinite(e.dof) ? boost::math::quantile(boost::math::students_t(e.dof), 0.5 + level / 2)
                                        : boost::math::quantile(boost::math::normal(), 0.5 + level / 2);
  e.lo = e.value * std::exp(-t * e.se_log);
  e.hi = e.value * std::exp(t * e.se_log);
  return e;
}

std::optional<EfficiencyEstimate> scaling_efficiency(const std::vector<double>& reference_ms, double ref_samples,
                                                     const std::vector<double>& point_ms, double samples, double k,
                                                     double level) {
  const auto ref = mean_with_error(reference_ms), pt = mean_with_error(point_ms);
  if (!ref || !pt) return std::nullopt;
  return scaling_efficiency(*ref, ref_samples, *pt, samples, k, level);
}

}  // namespace pperf
