#include "reports/writer.h"

#include "src/core/results_json.h"
#include "reports/formats.h"

namespace pperf {

const std::vector<RunWriter>& run_writers() {
  static const std::vector<RunWriter> writers = {
      {"console", "", "txt", "the table and notes pperf prints (at the page's console width)", false,
       [](const RunReportPage& p) { return to_console(*p.run, p.console); }},
      {"csv", "csv", "csv", "one row per result, a header naming each column's unit", false,
       [](const RunReportPage& p) { return to_csv(*p.run); }},
      {"html", "html", "html", "one self-contained HTML file: inline CSS and SVG, no script (with trends when --history is on)",
       true, run_report_html},
      {"markdown", "markdown", "md", "a Markdown summary (with trends when --history is on)", true, run_report_markdown},
      {"gbench", "gbench", "json", "Google Benchmark JSON (google/benchmark's compare.py reads it)", false,
       [](const RunReportPage& p) { return to_gbench_json(*p.run).dump(2) + "\n"; }},
      {"json", "", "json", "the results JSON itself (docs/results.md)", false,
       [](const RunReportPage& p) { return results_file_text(*p.run); }},
  };
  return writers;
}

const std::vector<CompareWriter>& compare_writers() {
  static const std::vector<CompareWriter> writers = {
      {"console", "", "txt", "the table and reasons pperf prints", false, compare_console},
      {"json", "out", "json", "the comparison as JSON (schemas/compare.schema.json)", false,
       [](const CompareReport& r) { return compare_to_json(r).dump(2) + "\n"; }},
      {"markdown", "markdown", "md", "GitHub-flavoured Markdown (regressions first)", false, compare_markdown},
      {"junit", "junit", "xml", "JUnit XML (one testcase per pair)", false, compare_junit},
      {"html", "html", "html", "a self-contained HTML page of the comparison", false, compare_report_html},
  };
  return writers;
}

const std::vector<AdviceWriter>& advice_writers() {
  static const std::vector<AdviceWriter> writers = {
      {"console", "", "txt", "the ranking pperf prints", false, advice_console},
      {"json", "json", "json", "the ranking as JSON", false, [](const Advice& a) { return advice_json(a).dump(2) + "\n"; }},
      {"markdown", "markdown", "md", "the ranking as Markdown", false, advice_markdown},
  };
  return writers;
}

const std::vector<ProjectionWriter>& projection_writers() {
  static const std::vector<ProjectionWriter> writers = {
      {"console", "", "txt", "the projection pperf prints (at the page's console width)", false, projection_console},
      {"json", "out", "json", "write the projection as JSON (schemas/projection.schema.json)", false,
       [](const ProjectionPage& p) { return projection_json(*p.projection).dump(2) + "\n"; }},
      {"html", "html", "html", "write an HTML page with the chart (USD per 1M samples vs data instances)", false,
       projection_html},
  };
  return writers;
}

}  // namespace pperf
