#pragma once
// Text helpers every format and command may share, a leaf of reports/: wrapping prose to the
// terminal, and the lines `pperf run` logs when an item starts and ends. Formats only.
#include <cstddef>
#include <string>

#include "src/core/result.h"

namespace pperf {

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
