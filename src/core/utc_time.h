#pragma once
// The wall clock as results, history rows and staleness checks write it (UTC).
#include <string>

namespace pperf {
/// Now, "2026-11-26T17:55:54Z".
std::string utc_timestamp();
/// Today, "2026-11-26".
std::string utc_today();
/// How far apart two times were, as people say it: "42 s", "15 min", "2.5 h", "3.0 days".
std::string duration_text(double seconds);
}  // namespace pperf
