// JUnit XML of a comparison: one testcase per pair; regressions, missing and failed pairs are
// failures with the figures in the message (what CI systems show as failed tests).
#include <fmt/format.h>

#include "reports/formats.h"
#include "reports/markup.h"
#include "reports/page_text.h"

namespace pperf {

std::string compare_junit(const CompareReport& r) {
  const size_t failures = r.count(Verdict::regressed) + r.count(Verdict::missing) + r.count(Verdict::failed);
  const std::string suite = "pperf compare " + r.candidate.report.config_name;
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\">\n", markup_escape(suite),
                     r.pairs.size(), failures);
  out += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\" timestamp=\"{}\">\n",
                     markup_escape(suite), r.pairs.size(), failures, markup_escape(r.candidate.report.started_at));
  out += "    <properties>\n";
  out += fmt::format("      <property name=\"baseline\" value=\"{}\"/>\n", markup_escape(side_line(r.baseline)));
  out += fmt::format("      <property name=\"candidate\" value=\"{}\"/>\n", markup_escape(side_line(r.candidate)));
  for (const auto& w : r.warnings)
    out += fmt::format("      <property name=\"warning\" value=\"{}\"/>\n", markup_escape(w.message()));
  out += "    </properties>\n";
  for (const auto& p : r.pairs) {
    const double seconds = p.candidate && p.candidate->mean_ms ? *p.candidate->mean_ms / 1000 : 0;
    out += fmt::format("    <testcase classname=\"pperf.{}\" name=\"{}\" time=\"{:.6f}\">\n",
                       markup_escape(pair_workload_label(p)), markup_escape(p.configuration), seconds);
    std::string reasons;
    for (size_t i = 0; i < p.reasons.size(); ++i) reasons += (i ? "; " : "") + p.reasons[i];
    const std::string figures = pair_figures_line(p, r.currency);
    if (is_alarm(p.verdict)) {
      const std::string message = to_string(p.verdict) + ": " + reasons + (figures.empty() ? "" : " | " + figures);
      out += fmt::format("      <failure type=\"{}\" message=\"{}\">{}</failure>\n", to_string(p.verdict),
                         markup_escape(message), markup_escape(message));
    }
    out += fmt::format("      <system-out>{}</system-out>\n",
                       markup_escape(to_string(p.verdict) + ": " + reasons + (figures.empty() ? "" : "\n" + figures)));
    out += "    </testcase>\n";
  }
  std::string warnings;
  for (const auto& w : r.warnings) warnings += "warning: " + w.message() + "\n";
  for (const auto& n : r.notes) warnings += "note: " + n + "\n";
  if (!warnings.empty()) out += "    <system-err>" + markup_escape(warnings) + "</system-err>\n";
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace pperf
