#pragma once
// Values as flags and variables write them: comma-separated lists, whole numbers.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pperf {

/// `s` split at commas, empty items dropped.
std::vector<std::string> split_commas(const std::string& s);

/// `text` as a whole number > 0 (all of it, no sign, no spaces); nullopt otherwise.
std::optional<int64_t> positive_integer(const std::string& text);

}  // namespace pperf
