#pragma once
#include <vector>

namespace pperf {

/// "Nice" chart axis ticks covering [lo, hi]: about `target` values spaced 1, 2, 2.5 or 5 times a
/// power of ten, the first at or above lo, the last at or below hi (an empty or reversed range
/// is widened first). Exact zero where a tick lands on it.
std::vector<double> axis_ticks(double lo, double hi, int target = 5);

}  // namespace pperf
