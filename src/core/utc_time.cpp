#include "src/core/utc_time.h"

#include <fmt/format.h>

#include <ctime>

namespace pperf {
namespace {
std::string utc_now_as(const char* format) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}
}  // namespace

std::string utc_timestamp() { return utc_now_as("%Y-%m-%dT%H:%M:%SZ"); }
std::string utc_today() { return utc_now_as("%Y-%m-%d"); }

std::string duration_text(double seconds) {
  if (seconds >= 2 * 86400) return fmt::format("{:.1f} days", seconds / 86400);
  if (seconds >= 2 * 3600) return fmt::format("{:.1f} h", seconds / 3600);
  if (seconds >= 120) return fmt::format("{:.0f} min", seconds / 60);
  return fmt::format("{:.0f} s", seconds);
}
}  // namespace pperf
