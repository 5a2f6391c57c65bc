#pragma once
// The console report: a table that fits the terminal, what ran where, the states that matter
// flagged, and one sentence per non-baseline configuration. Formats the record only.
#include <cstddef>
#include <string>

#include "bench/core/result.h"

namespace pperf {

struct ConsoleOptions {
  size_t width = 0;   // columns available; 0 = no limit (every column)
  bool wide = false;  // every column whatever the width
};

/// The report as the terminal shows it. With a width, the least important columns are dropped
/// until the table fits (configuration, step time, cost, improvement and notes always stay).
std::string to_console(const RunReport& report, const ConsoleOptions& options = {});

/// `value` with `significant` significant digits in fixed notation (never "0.0000" for a
/// non-zero value, never an exponent): 0.000051234 -> "0.0000512".
std::string significant(double value, int significant = 3);

}  // namespace pperf
