// The advice page as JSON (the run's is src/core/results_json.h, a comparison's reports/compare.h).
#include "reports/formats.h"

namespace pperf {

nlohmann::json advice_json(const Advice& advice) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : advice.rows)
    rows.push_back({{"rank", r.rank}, {"workload", r.workload}, {"configuration", r.configuration}, {"file", r.file},
                    {"market", r.market}, {"instances", r.instances}, {"steps", r.steps}, {"usd", r.usd},
                    {"hours", r.hours}, {"wall_hours", r.wall_hours},
                    {"p95_usd", r.p95_usd ? nlohmann::json(*r.p95_usd) : nlohmann::json(nullptr)},
                    {"expected_interruptions", r.expected_interruptions}, {"decision", r.decision}, {"reason", r.reason}});
  return {{"market", advice.market}, {"rows", rows}, {"notes", advice.notes}};
}

}  // namespace pperf
