#include "bench/core/measurement.h"

#include <numeric>

namespace pperf {

double Measurement::data_wait_fraction() const {
  const double total = std::accumulate(step_ms.begin(), step_ms.end(), 0.0);
  const double waited = std::accumulate(data_wait_ms.begin(), data_wait_ms.end(), 0.0);
  return total > 0 ? waited / total : 0;
}

double Measurement::samples_per_s(int64_t samples_per_step) const {
  const double total_ms = std::accumulate(step_ms.begin(), step_ms.end(), 0.0);
  return total_ms > 0 ? static_cast<double>(samples_per_step) * step_ms.size() / (total_ms / 1000) : 0;
}

}  // namespace pperf
