#pragma once
// The wall clock as results, history rows and staleness checks write it (UTC).
#include <string>

namespace pperf {
/// Now, "2026-11-26T17:55:54Z".
std::string utc_timestamp();
/// Today, "2026-11-26".
std::string utc_today();
}  // namespace pperf
