#pragma once
// Writers: each turns the one RunReport record into an output format. They format only;
// nothing here measures or prices. (The results JSON itself is bench/core/results_json.h.)
#include <string>

#include "bench/core/result.h"

namespace pperf {

/// "1x ml.p4d.24xlarge + 2x ml.c5.18xlarge (spot)".
std::string instances_label(const std::vector<PricedGroup>& groups);
/// One row per result, a header naming each column's unit.
std::string to_csv(const RunReport& report);

}  // namespace pperf
