#include "src/project/report.h"

namespace pperf::project {

const Prediction* cheapest(const WorkloadProjection& w) { return w.predictions.empty() ? nullptr : &w.predictions[0]; }

double error_pct(const ConfigurationCheck& c) {
  return c.actual_ms && *c.actual_ms > 0 ? 100 * (c.predicted.step_ms.value - *c.actual_ms) / *c.actual_ms : 0;
}

}  // namespace pperf::project
