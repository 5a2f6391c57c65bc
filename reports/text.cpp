#include "reports/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <sstream>

namespace pperf {

namespace {
/// Whether a line may break at the space at `at`: not inside an interval ("[54, 78.59]"), nor
/// between a number or an interval and a short unit after it ("25 %", "150.6 ms", "[1, 2] ms"),
/// which would leave the unit alone on the next line.
bool breakable(const std::string& line, size_t at) {
  const size_t open = line.rfind('[', at);
  if (open != std::string::npos && line.find(']', open) > at) return false;
  if (at == 0 || !(std::isdigit(static_cast<unsigned char>(line[at - 1])) || line[at - 1] == ']')) return true;
  const size_t end = std::min(line.find(' ', at + 1), line.size());
  const std::string word = line.substr(at + 1, end - at - 1);
  return word.empty() || word.size() > 3 || std::any_of(word.begin(), word.end(), [](unsigned char c) { return std::isdigit(c); });
}
}  // namespace

std::string wrap(const std::string& text, size_t width) {
  if (width == 0) return text;
  std::string out;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const size_t indent = line.find_first_not_of(' ') == std::string::npos ? 0 : line.find_first_not_of(' ');
    while (line.size() > width) {
      size_t cut = line.rfind(' ', width);
      while (cut != std::string::npos && cut > indent + 2 && !breakable(line, cut)) cut = line.rfind(' ', cut - 1);
      if (cut == std::string::npos || cut <= indent + 2) break;
      out += line.substr(0, cut) + "\n";
      line = std::string(indent + 2, ' ') + line.substr(cut + 1);
    }
    out += line + "\n";
  }
  return out;
}

std::string item_started_line(const std::string& at, const std::string& workload, const std::string& preset,
                              const std::string& configuration, size_t item, size_t items, size_t width) {
  return wrap(fmt::format("[{}] {}/{} on {}: started (item {} of {})\n", at, workload, preset, configuration, item, items), width);
}

std::string item_finished_line(const std::string& at, const Result& r, size_t width) {
  const std::string what =
      r.status == ResultStatus::ok && r.step && r.measurement
          ? fmt::format("mean {:.4g} ms/step (median {:.4g}) over {} steps until {}{}", r.step->mean_ms, r.step->median_ms,
                        r.measurement->step_ms.size(), r.measurement->stop.text, r.partial ? ", partial" : "")
          : to_string(r.status) + ": " + r.reason;
  return wrap(fmt::format("[{}] {}/{} on {}: {}\n", at, r.workload, r.preset, r.configuration, what), width);
}

}  // namespace pperf
