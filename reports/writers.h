#pragma once
// Writers: each turns the one RunReport record into an output format. They format only;
// nothing here measures or prices. (The results JSON itself is bench/core/results_json.h.)
#include <string>

#include "bench/core/result.h"

namespace pperf {

/// One row per result, a header naming each column's unit.
std::string to_csv(const RunReport& report);
/// A fixed-width table for the terminal; every numeric header carries its unit.
std::string to_console_table(const RunReport& report);

}  // namespace pperf
