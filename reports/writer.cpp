#include "reports/writer.h"

#include "bench/core/results_json.h"
#include "reports/console.h"
#include "reports/export.h"
#include "reports/writers.h"

namespace pperf {

const std::vector<RunWriter>& run_writers() {
  static const std::vector<RunWriter> writers = {
      {"console", "txt", "the table and notes pperf prints (at the page's console width)", false, false,
       [](const RunReportPage& p) { return to_console(*p.run, p.console); }},
      {"csv", "csv", "one row per result, a header naming each column's unit", false, true,
       [](const RunReportPage& p) { return to_csv(*p.run); }},
      {"html", "html", "one self-contained HTML file: inline CSS and SVG, no script (with trends when --history is on)", true,
       true, run_report_html},
      {"markdown", "md", "a Markdown summary (with trends when --history is on)", true, true, run_report_markdown},
      {"gbench", "json", "Google Benchmark JSON (google/benchmark's compare.py reads it)", false, true,
       [](const RunReportPage& p) { return to_gbench_json(*p.run).dump(2) + "\n"; }},
      {"json", "json", "the results JSON itself (docs/results.md)", false, false,
       [](const RunReportPage& p) { return results_file_text(*p.run); }},
  };
  return writers;
}

const RunWriter* find_run_writer(const std::string& name) {
  for (const auto& w : run_writers())
    if (w.name == name) return &w;
  return nullptr;
}

std::vector<std::string> run_writer_names() {
  std::vector<std::string> names;
  for (const auto& w : run_writers()) names.push_back(w.name);
  return names;
}

}  // namespace pperf
