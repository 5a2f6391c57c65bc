#include "src/core/result_events.h"

#include <string_view>

namespace pperf {

bool warming_up(const Result& r) {
  const std::string_view prefix = kWarmingUpEvent;
  for (const auto& e : r.events)
    if (std::string_view(e).substr(0, prefix.size()) == prefix) return true;
  return false;
}

}  // namespace pperf
