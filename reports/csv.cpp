// CSV of a run: one row per result, a column per reports/columns.h column shown in CSV.
#include "reports/formats.h"

#include "reports/columns.h"

#include <fmt/format.h>

namespace pperf {

namespace {
std::string quoted(const std::string& s) {
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

/// Numbers as the machine reads them; texts quoted, except the closed sets (booleans, status).
std::string csv_field(const Column& c, const std::optional<double>& v, const std::optional<std::string>& text) {
  if (text) return c.style.kind == Style::word ? *text : quoted(*text);
  if (!v) return "";
  return c.style.kind == Style::count ? fmt::format("{:.0f}", *v) : fmt::format("{:.10g}", *v);
}
}  // namespace

std::string to_csv(const RunReport& report) {
  std::string header, out;
  for (const Column& c : result_columns()) {
    if (!(c.shown & kCsv)) continue;
    header += (header.empty() ? "" : ",") + c.key;
    if (!c.ci_key.empty()) header += "," + c.ci_key + "_lo," + c.ci_key + "_hi";
  }
  out = header + "\n";
  for (const auto& r : report.results) {
    std::string row;
    for (const Column& c : result_columns()) {
      if (!(c.shown & kCsv)) continue;
      const Figure f = c.read(r);
      row += (row.empty() ? "" : ",") + csv_field(c, f.value, f.text);
      if (!c.ci_key.empty()) {
        const auto& ci = f.ci95;
        row += "," + csv_field(c, ci ? std::optional<double>((*ci)[0]) : std::nullopt, std::nullopt) + "," +
               csv_field(c, ci ? std::optional<double>((*ci)[1]) : std::nullopt, std::nullopt);
      }
    }
    out += row + "\n";
  }
  return out;
}

}  // namespace pperf
