#pragma once
// The console report: a table that fits the terminal, what ran where, the states that matter
// flagged, and one sentence per non-baseline configuration. Formats the record only.
#include <cstddef>
#include <string>

#include "src/core/result.h"
#include "reports/columns.h"

namespace pperf {

struct ConsoleOptions {
  size_t width = 0;   // columns available; 0 = no limit (every column)
  bool wide = false;  // every column whatever the width
};

/// The report as the terminal shows it. With a width, the least important columns are dropped
/// until the table fits (configuration, step time, cost, improvement and notes always stay), and
/// the prose under it is wrapped to the width. Columns: reports/columns.h.
std::string to_console(const RunReport& report, const ConsoleOptions& options = {});

/// A sweep's race (RunReport::sweep) as a table per workload sorted by cost per sample, each
/// point on one line with its verdict ("eliminated after round N"; the point it lost to in a note
/// under the table); "" without a sweep. With a width (0: none), the prose is wrapped to it and
/// the cost's CI, then the ratio's bounds, are left out (and said so) until the rows fit.
std::string sweep_table(const nlohmann::json& sweep, const std::string& currency, size_t width = 0);

/// `text`'s lines wrapped at spaces to `width` columns (0: as is); continuation lines are
/// indented like their first line, plus two spaces. A word longer than the width is not cut, and
/// a number keeps a short unit after it on its line ("25 %", "150.6 ms").
std::string wrap(const std::string& text, size_t width);

/// The lines `pperf run` logs on stderr when an item starts and ends (where no progress line is
/// drawn), wrapped to `width` (0: one line each): "[TIME] workload/preset on configuration: ...".
std::string item_started_line(const std::string& at, const std::string& workload, const std::string& preset,
                              const std::string& configuration, size_t item, size_t items, size_t width);
std::string item_finished_line(const std::string& at, const Result& r, size_t width);

}  // namespace pperf
