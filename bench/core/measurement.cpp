#include "bench/core/measurement.h"

#include <numeric>

namespace pperf {

std::string Measurement::stop_reason_code() const {
  const auto starts = [&](const char* prefix) { return stop_reason.rfind(prefix, 0) == 0; };
  if (source_failed || starts("data source failed")) return "data_source_failed";
  if (interrupted || starts("interrupted")) return "interrupted";
  for (const char* code : {"target_rel_ci", "max_steps", "max_seconds"})
    if (starts(code)) return code;
  if (starts("data source ended")) return "data_source_ended";
  return "other";
}

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
