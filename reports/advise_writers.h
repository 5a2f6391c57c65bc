#pragma once
// `pperf advise` outputs: console lines, Markdown and JSON of the one Advice record.
#include <nlohmann/json.hpp>

#include <string>

#include "bench/core/advice.h"

namespace pperf {

std::string advice_console(const Advice& advice);
std::string advice_markdown(const Advice& advice);
nlohmann::json advice_json(const Advice& advice);

}  // namespace pperf
