#pragma once
// The CSV writer: one row per result, a column per reports/columns.h column shown in CSV. Formats
// only; nothing here measures or prices. (The results JSON itself is bench/core/results_json.h.)
#include <string>

#include "bench/core/result.h"
#include "reports/columns.h"

namespace pperf {

/// A header row of keys (each names its unit: step_ms_median, usd_per_hour, data_wait_fraction),
/// then one row per result; numbers with 10 significant digits, texts quoted, absent values empty.
std::string to_csv(const RunReport& report);

}  // namespace pperf
