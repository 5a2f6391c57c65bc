#include "src/core/text_values.h"

#include <sstream>

namespace pperf {

std::optional<int64_t> positive_integer(const std::string& text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  try {
    const long long value = std::stoll(text);
    if (value > 0) return value;
  } catch (const std::exception&) {  // out of range
  }
  return std::nullopt;
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace pperf
