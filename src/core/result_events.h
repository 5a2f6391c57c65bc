#pragma once
// Events the measure stage records in Result::events that the writers read back, so what a
// stage decided is decided once: the text each begins with, and the test for it.
#include "src/core/result.h"

namespace pperf {

/// Step times still fall over the measured steps (the measure stage's Mann–Kendall test,
/// src/stats/intervals.h's warming_up_trend, run once there): an event beginning with this
/// text, which the writers' "warming up" note reads back.
inline constexpr const char* kWarmingUpEvent = "still warming up: ";
/// True when the measure stage recorded kWarmingUpEvent for `r`.
bool warming_up(const Result& r);

}  // namespace pperf
