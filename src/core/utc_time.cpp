#include "src/core/utc_time.h"

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
}  // namespace pperf
